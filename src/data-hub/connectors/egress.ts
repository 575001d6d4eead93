import { EgressRefused, type EgressPolicy } from '../../infra/egress/egress-policy.js';
import { ConnectionFailure } from './connection-failure.js';

/** Socket errors that mean the server could not be reached (as opposed to a refusal by the server). */
export const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT']);

/** The address a connector connects to for `host`, allowed by the egress policy; refusals as the merchant reads them. */
export async function checkedAddress(egress: EgressPolicy, host: string): Promise<string> {
  try {
    return (await egress.resolve(host)).address;
  } catch (error) {
    if (error instanceof EgressRefused)
      throw new ConnectionFailure(error.reason === 'not_allowed' ? 'host_not_allowed' : 'host_unreachable');
    throw error;
  }
}
