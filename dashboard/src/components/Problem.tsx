import { ApiError } from '../lib/api.js';
import { translate, type Lang } from '../i18n/messages.js';
import { pick } from '../lib/app-context.js';

/** An error envelope in the current language, with its suggestion (e.g. the plan to upgrade to). */
export function ProblemView({ error, lang }: { error: unknown; lang: Lang }) {
  const problem = error instanceof ApiError ? error.problem : null;
  const message = !problem
    ? translate(lang, 'error.title')
    : problem.code === 'network_error' || problem.code === 'unexpected'
      ? translate(lang, 'error.network')
      : pick(lang, problem, 'message');
  const plan = problem?.code === 'plan_not_entitled' ? problem.requiredPlan : undefined;
  return (
    <div class="problem" role="alert" data-code={problem?.code}>
      <p>{message}</p>
      {problem?.suggestion ? <p class="suggestion">{pick(lang, problem.suggestion, 'message')}</p> : null}
      {plan ? (
        <p class="upgrade" data-upgrade={plan}>
          <strong>{translate(lang, 'error.upgrade', { plan: translate(lang, `plan.${plan}` as 'plan.basic') })}</strong>
        </p>
      ) : null}
    </div>
  );
}
