import type { AdminPrincipal, SessionPrincipal } from '../principal.js';
import type { ResolvedApiKey } from '../../stores/api-key.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key of `X-Api-Key`, when the request carries a live one. */
    apiKey?: ResolvedApiKey;
    principal?: SessionPrincipal;
    /** A dashboard caller (routes under /admin). */
    admin?: AdminPrincipal;
  }
}
