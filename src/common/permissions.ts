/**
 * The dashboard's vocabulary (interface part 5, contract section 7): permissions, the roles that
 * bundle them, and what each store plan is entitled to. Declared once; the guard, the command line,
 * Insights and the data hub read it from here.
 */

export const INSIGHTS_AREAS = ['sales', 'products', 'customers', 'fulfilment', 'finance', 'behaviour'] as const;
export type InsightsArea = (typeof INSIGHTS_AREAS)[number];

export const PERMISSIONS = [
  'insights.sales.view',
  'insights.products.view',
  'insights.customers.view',
  'insights.fulfilment.view',
  'insights.finance.view',
  'insights.behaviour.view',
  'insights.reports.manage',
  'insights.builder.use',
  'insights.settings.manage',
  'data.flows.read',
  'data.flows.manage',
  'data.connections.manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** The view permission of an Insights area. */
export function viewPermission(area: InsightsArea): Permission {
  return `insights.${area}.view` as Permission;
}

/** Every Insights view permission, one per area. */
export const INSIGHTS_VIEW_PERMISSIONS: readonly Permission[] = INSIGHTS_AREAS.map(viewPermission);

export const STAFF_ROLES = ['owner', 'admin', 'analyst', 'data_manager', 'viewer', 'custom'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/** What each role grants; `custom` grants exactly the permissions given to the staff member. */
export const ROLE_PERMISSIONS: Record<Exclude<StaffRole, 'custom'>, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  analyst: [...INSIGHTS_VIEW_PERMISSIONS, 'insights.builder.use', 'insights.reports.manage'],
  data_manager: PERMISSIONS.filter((permission) => permission.startsWith('data.')),
  viewer: INSIGHTS_VIEW_PERMISSIONS,
};

export function permissionsOf(role: StaffRole, custom: readonly string[] = []): Permission[] {
  const granted = role === 'custom' ? custom.filter(isPermission) : ROLE_PERMISSIONS[role];
  return PERMISSIONS.filter((permission) => granted.includes(permission));
}

/**
 * What a support session may read: every Insights area, the report builder (whose run is a read) and
 * the data hub (whose connections the interface lists under `data.flows.manage`). The store's plan
 * still gates them, and a support session never writes, whatever it holds.
 */
export const SUPPORT_PERMISSIONS: readonly Permission[] = [
  ...INSIGHTS_VIEW_PERMISSIONS,
  'insights.builder.use',
  'data.flows.read',
  'data.flows.manage',
];

export const STORE_PLANS = ['basic', 'growth', 'pro'] as const;
export type StorePlan = (typeof STORE_PLANS)[number];

/**
 * What a plan entitles, each plan adding to the one before (contract section 7). `area:*` are the
 * Insights areas; `range:90` and `range:366` the longest `last`, `range:all` the whole history.
 */
const PLAN_ADDS = {
  basic: ['area:sales', 'area:products', 'range:90', 'feature:saved_reports', 'feature:export_csv', 'feature:data_hub'],
  growth: [
    'area:customers',
    'area:fulfilment',
    'area:finance',
    'range:366',
    'range:all',
    'feature:compare',
    'feature:builder',
    'feature:schedules',
    'feature:export_xlsx',
  ],
  pro: ['area:behaviour', 'feature:schedule_to_connection', 'feature:database_read'],
} as const satisfies Record<StorePlan, readonly string[]>;
export type Entitlement = (typeof PLAN_ADDS)[StorePlan][number];

export const ENTITLEMENTS: readonly Entitlement[] = STORE_PLANS.flatMap((plan) => PLAN_ADDS[plan]);

export function entitlementsOf(plan: StorePlan): Entitlement[] {
  const upTo = STORE_PLANS.slice(0, STORE_PLANS.indexOf(plan) + 1);
  return upTo.flatMap((included) => PLAN_ADDS[included]);
}

/** The cheapest plan that has an entitlement. */
export function requiredPlan(entitlement: Entitlement): StorePlan {
  return STORE_PLANS.find((plan) => (PLAN_ADDS[plan] as readonly Entitlement[]).includes(entitlement))!;
}

/** The entitlement a permission's routes need from the plan, if any: an Insights area, or the builder. */
export function entitlementFor(permission: Permission): Entitlement | undefined {
  const area = /^insights\.(\w+)\.view$/.exec(permission)?.[1];
  if (area) return `area:${area}` as Entitlement;
  if (permission === 'insights.builder.use') return 'feature:builder';
  return undefined;
}
