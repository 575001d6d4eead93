import { useEffect, useState } from 'preact/hooks';
import { Field, useFieldErrors } from '../../components/fields.js';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { api } from '../../lib/api.js';
import { useApp } from '../../lib/app-context.js';
import type { InsightsSettings } from '../../lib/types.js';
import { useLoad } from '../../lib/load.js';

const SETTINGS_CONTROLS = ['timezone', 'weekStartsOn', 'lateAfterHours'];

/** Insights settings: read by any Insights reader, saved with insights.settings.manage (not by a support session). */
export function Settings() {
  const { t, lang, can, canWrite } = useApp();
  const { data, error } = useLoad<InsightsSettings>('/admin/insights/settings');
  const [draft, setDraft] = useState<InsightsSettings | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => setDraft(data), [data]);
  // The report language's select is not named `language`, the name of the dashboard's own language.
  const errors = useFieldErrors(saveError, (field) =>
    field === 'language' ? 'reportLanguage' : SETTINGS_CONTROLS.includes(field) ? field : undefined,
  );
  const manage = canWrite && can('insights.settings.manage');
  const set = (change: Partial<InsightsSettings>) => {
    setSaved(false);
    setDraft(draft ? { ...draft, ...change } : draft);
  };
  return (
    <section aria-labelledby="page-title" data-page="settings">
      <h1 id="page-title">{t('ins.nav.settings')}</h1>
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {!draft && !error ? <p role="status">{t('app.loading')}</p> : null}
      {draft ? (
        <form
          class="ins-form"
          ref={errors.formRef}
          aria-labelledby="page-title"
          onSubmit={(event) => {
            event.preventDefault();
            setSaveError(null);
            api<InsightsSettings>('PATCH', '/admin/insights/settings', {
              timezone: draft.timezone,
              weekStartsOn: draft.weekStartsOn,
              language: draft.language,
              excludeTestOrders: draft.excludeTestOrders,
              lateAfterHours: draft.lateAfterHours,
            }).then((next) => {
              setDraft(next);
              setSaved(true);
            }, setSaveError);
          }}
        >
          <fieldset disabled={!manage}>
            <Field label={t('ins.settings.timezone')} name="timezone" errors={errors}>
              {(control) => (
                <input
                  {...control}
                  dir="ltr"
                  required
                  value={draft.timezone}
                  onInput={(event) => set({ timezone: event.currentTarget.value })}
                />
              )}
            </Field>
            <label>
              <span>{t('ins.settings.currency')}</span>
              <input name="currency" dir="ltr" value={draft.currency} readOnly aria-readonly="true" />
            </label>
            <Field label={t('ins.settings.weekStartsOn')} name="weekStartsOn" errors={errors}>
              {(control) => (
                <select
                  {...control}
                  value={draft.weekStartsOn}
                  onChange={(event) => set({ weekStartsOn: event.currentTarget.value as InsightsSettings['weekStartsOn'] })}
                >
                  {(['saturday', 'sunday', 'monday'] as const).map((day) => (
                    <option value={day} key={day}>
                      {t(`ins.day.${day}` as MessageKey)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label={t('ins.settings.language')} name="reportLanguage" errors={errors}>
              {(control) => (
                <select
                  {...control}
                  value={draft.language}
                  onChange={(event) => set({ language: event.currentTarget.value as 'en' | 'ar' })}
                >
                  <option value="en">{t('lang.en')}</option>
                  <option value="ar">{t('lang.ar')}</option>
                </select>
              )}
            </Field>
            <label class="check">
              <input
                type="checkbox"
                name="excludeTestOrders"
                checked={draft.excludeTestOrders}
                onChange={(event) => set({ excludeTestOrders: event.currentTarget.checked })}
              />
              <span>{t('ins.settings.excludeTestOrders')}</span>
            </label>
            <Field label={t('ins.settings.lateAfterHours')} name="lateAfterHours" errors={errors}>
              {(control) => (
                <input
                  {...control}
                  type="number"
                  min={0}
                  max={720}
                  value={draft.lateAfterHours ?? ''}
                  onInput={(event) => set({ lateAfterHours: event.currentTarget.value === '' ? null : Number(event.currentTarget.value) })}
                />
              )}
            </Field>
          </fieldset>
          {saveError ? <ProblemView error={saveError} lang={lang} /> : null}
          {errors.rest}
          {saved ? <p role="status">{t('ins.settings.saved')}</p> : null}
          {manage ? (
            <button type="submit" data-write>
              {t('ins.save')}
            </button>
          ) : (
            <p class="hint">{t('ins.settings.readOnly')}</p>
          )}
        </form>
      ) : null}
    </section>
  );
}
