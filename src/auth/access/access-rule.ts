import type { Permission } from '../../common/permissions.js';
import type { Scope } from '../../common/scopes.js';

/** Any one of the Insights view permissions: the catalogue of measures, dimensions and data freshness. */
export const ANY_INSIGHTS_VIEW = 'insights.*.view';

/**
 * What a route needs, declared with one decorator. The access guard refuses any route without a
 * rule, so nothing is open by accident.
 * - `public`, `apiKey`, `scope`: the storefront (contract sections 4 and 5);
 * - `adminSignIn`: the dashboard's sign-in and refresh, which establish a principal;
 * - `admin`: any signed-in dashboard principal (staff or support), whatever its permissions;
 * - `permission`: a dashboard principal holding the permission, on a plan entitled to its area.
 */
export type AccessRule =
  | { kind: 'public' }
  | { kind: 'apiKey' }
  | { kind: 'scope'; scope: Scope }
  | { kind: 'adminSignIn' }
  | { kind: 'admin' }
  | { kind: 'permission'; permission: Permission | typeof ANY_INSIGHTS_VIEW };

export const ACCESS_RULE = 'access:rule';
