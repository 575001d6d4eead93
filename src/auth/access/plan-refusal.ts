import { ApiError } from '../../common/errors/api-error.js';
import { requiredPlan, type Entitlement, type StorePlan } from '../../common/permissions.js';

/** 403 plan_not_entitled naming the cheapest plan that has what was asked for, with an upgrade suggestion. */
export function planRefusal(plan: StorePlan, entitlement?: Entitlement): ApiError {
  return new ApiError('plan_not_entitled', {
    details: entitlement ? { requiredPlan: plan, entitlement } : { requiredPlan: plan },
    suggestion: {
      code: 'upgrade_plan',
      message_en: `Upgrade to the ${plan} plan to use this.`,
      message_ar: `رقِّ خطة المتجر إلى ${plan} لاستخدام هذا.`,
      plan,
    },
  });
}

export function notEntitled(entitlement: Entitlement): ApiError {
  return planRefusal(requiredPlan(entitlement), entitlement);
}

/** Refuses, with plan_not_entitled, a caller whose store's plan lacks `entitlement`. */
export function requireEntitlement(caller: { entitlements: readonly Entitlement[] }, entitlement: Entitlement): void {
  if (!caller.entitlements.includes(entitlement)) throw notEntitled(entitlement);
}
