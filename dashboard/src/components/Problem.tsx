import { ApiError } from '../lib/api.js';
import { translate, type Lang } from '../i18n/messages.js';
import { pick } from '../lib/app-context.js';
import { fieldErrorsOf } from './fields.js';

/**
 * An error envelope in the current language, with its suggestion (e.g. the plan to upgrade to). `fields`: its
 * per-field errors listed under it, where the page has no form to show them beside their controls.
 */
export function ProblemView({ error, lang, fields = false }: { error: unknown; lang: Lang; fields?: boolean }) {
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
      {fields && fieldErrorsOf(error).length > 0 ? (
        <ul class="field-errors" data-field-errors="problem">
          {fieldErrorsOf(error).map((fieldError) => (
            <li key={`${fieldError.field}:${fieldError.code}`} data-field={fieldError.field}>
              {pick(lang, fieldError, 'message')}
            </li>
          ))}
        </ul>
      ) : null}
      {problem?.suggestion ? <p class="suggestion">{pick(lang, problem.suggestion, 'message')}</p> : null}
      {plan ? (
        <p class="upgrade" data-upgrade={plan}>
          <strong>{translate(lang, 'error.upgrade', { plan: translate(lang, `plan.${plan}` as 'plan.basic') })}</strong>
        </p>
      ) : null}
    </div>
  );
}
