import type { Scope } from '../../common/scopes.js';

/**
 * What a route needs, declared with one decorator. The access guard refuses any route without a
 * rule, so nothing is open by accident. Dashboard permissions and support sessions (contract
 * section 5) arrive as further kinds of this union.
 */
export type AccessRule = { kind: 'public' } | { kind: 'apiKey' } | { kind: 'scope'; scope: Scope };

export const ACCESS_RULE = 'access:rule';
