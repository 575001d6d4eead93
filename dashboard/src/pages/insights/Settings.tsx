import { useEffect, useMemo, useState } from 'preact/hooks';
import { Field, useFieldErrors } from '../../components/fields.js';
import { ProblemView } from '../../components/Problem.js';
import type { Lang, MessageKey } from '../../i18n/messages.js';
import { answer, client, get } from '../../lib/api.js';
import { useApp, type AppContext } from '../../lib/app-context.js';
import type { InsightsSettings } from '../../lib/types.js';
import { useLoad } from '../../lib/load.js';

const SETTINGS_CONTROLS = ['timezone', 'currency', 'weekStartsOn', 'lateAfterHours'];
const LOCALES: Record<Lang, string> = { en: 'en-GB', ar: 'ar' };
type T = AppContext['t'];

/** Text kept in its own direction inside a sentence of the other (a zone's id in Arabic): Unicode's first-strong isolate. */
const isolate = (text: string) => `\u2068${text}\u2069`;

/**
 * The IANA time zones the browser knows (`Intl.supportedValuesOf('timeZone')`, with the store's own if it
 * is an alias the list leaves out), grouped by region, each named with its offset and its name in `lang`:
 * "Asia/Riyadh — GMT+03:00, Arabian Standard Time".
 */
function timeZoneGroups(current: string, lang: Lang, t: T): [region: string, zones: [zone: string, name: string][]][] {
  const zones = [...new Set([...Intl.supportedValuesOf('timeZone'), current])].sort();
  const groups = new Map<string, [string, string][]>();
  for (const zone of zones) {
    const part = (style: 'longOffset' | 'long') =>
      new Intl.DateTimeFormat(LOCALES[lang], { timeZone: zone, timeZoneName: style })
        .formatToParts(new Date())
        .find((piece) => piece.type === 'timeZoneName')?.value ?? '';
    const region = zone.includes('/') ? zone.slice(0, zone.indexOf('/')) : 'UTC';
    const name = t('ins.settings.zoneName', {
      zone: isolate(zone.replaceAll('_', ' ')),
      offset: isolate(part('longOffset')),
      name: part('long'),
    });
    groups.set(region, [...(groups.get(region) ?? []), [zone, name]]);
  }
  return [...groups];
}

/** The ISO 4217 currencies the browser knows (with the store's), each named in `lang`: "SAR — Saudi Riyal". */
function currencies(current: string, lang: Lang): [code: string, name: string][] {
  const names = new Intl.DisplayNames([LOCALES[lang]], { type: 'currency' });
  return [...new Set([...Intl.supportedValuesOf('currency'), current])]
    .sort()
    .map((code) => [code, `${isolate(code)} — ${names.of(code) ?? code}`]);
}

/** Insights settings: read by any Insights reader, saved with insights.settings.manage (not by a support session). */
export function Settings() {
  const { t, lang, can, canWrite } = useApp();
  const { data, error } = useLoad(() => get('/admin/insights/settings'));
  const [draft, setDraft] = useState<InsightsSettings | null>(null);
  const [saveError, setSaveError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => setDraft(data), [data]);
  const timezone = draft?.timezone;
  const zones = useMemo(() => (timezone ? timeZoneGroups(timezone, lang, t) : []), [timezone, lang]);
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
            answer(
              client.PATCH('/admin/insights/settings', {
                body: {
                  timezone: draft.timezone,
                  weekStartsOn: draft.weekStartsOn,
                  language: draft.language,
                  excludeTestOrders: draft.excludeTestOrders,
                  lateAfterHours: draft.lateAfterHours,
                },
              }),
            ).then((next) => {
              setDraft(next);
              setSaved(true);
            }, setSaveError);
          }}
        >
          <fieldset disabled={!manage}>
            <Field label={t('ins.settings.timezone')} name="timezone" errors={errors}>
              {(control) => (
                <select {...control} required value={draft.timezone} onChange={(event) => set({ timezone: event.currentTarget.value })}>
                  {zones.map(([region, inRegion]) => (
                    <optgroup label={region} key={region}>
                      {inRegion.map(([zone, name]) => (
                        <option value={zone} key={zone}>
                          {name}
                        </option>
                      ))}
                    </optgroup>
                  ))}
                </select>
              )}
            </Field>
            <Field label={t('ins.settings.currency')} name="currency" errors={errors} hint={t('ins.settings.currencyHint')}>
              {(control) => (
                <select {...control} value={draft.currency} disabled>
                  {currencies(draft.currency, lang).map(([code, name]) => (
                    <option value={code} key={code}>
                      {name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
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
            <Field
              label={t('ins.settings.lateAfterHours')}
              name="lateAfterHours"
              errors={errors}
              hint={t('ins.settings.lateAfterHoursHint')}
            >
              {(control) => (
                <input
                  {...control}
                  type="number"
                  min={0}
                  max={720}
                  placeholder="0"
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
