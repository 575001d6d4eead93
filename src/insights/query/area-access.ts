import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { INSIGHTS_AREAS, viewPermission, type Entitlement, type InsightsArea } from '../../common/permissions.js';
import { notEntitled } from '../../auth/access/plan-refusal.js';
import { dimensionNamed } from '../definitions/dimensions.js';

/**
 * What a query touches beyond its route's own permission (the builder's measures and dimensions, a
 * dimension's values): the caller needs the view permission of every area, and the plan each area.
 * Permissions are checked before the plan, as the guard does.
 */
export function requireAreas(admin: AdminPrincipal, areas: Iterable<InsightsArea | null>): void {
  const needed = requireViewPermissions(admin, areas);
  for (const area of needed) {
    const entitlement = `area:${area}` as Entitlement;
    if (!admin.entitlements.includes(entitlement)) throw notEntitled(entitlement);
  }
}

/** The view permission of every area, whatever the plan (to read what a saved report is, not to run it); answers the areas. */
export function requireViewPermissions(admin: AdminPrincipal, areas: Iterable<InsightsArea | null>): InsightsArea[] {
  const needed = [...new Set([...areas].filter((area): area is InsightsArea => area !== null))];
  for (const area of needed) {
    const permission = viewPermission(area);
    if (!admin.permissions.includes(permission)) throw new ApiError('missing_permission', { details: { requiredPermission: permission } });
  }
  return needed;
}

/** The areas whose view permission the caller holds. */
export function viewableAreas(admin: AdminPrincipal): InsightsArea[] {
  return INSIGHTS_AREAS.filter((area) => admin.permissions.includes(viewPermission(area)));
}

/** Of `dimensions`, those the caller may filter by: of no area, or of an area it may view on its plan. */
export function readableDimensions(admin: AdminPrincipal, dimensions: string[]): string[] {
  const readable = new Set(viewableAreas(admin).filter((area) => admin.entitlements.includes(`area:${area}` as Entitlement)));
  return dimensions.filter((name) => {
    const area = dimensionNamed(name)?.area;
    return area === null || area === undefined || readable.has(area);
  });
}
