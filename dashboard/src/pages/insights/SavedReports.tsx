import { useState } from 'preact/hooks';
import { ProblemView } from '../../components/Problem.js';
import { api } from '../../lib/api.js';
import { useApp } from '../../lib/app-context.js';
import { reportTitle } from '../../lib/reports.js';
import { navigate } from '../../lib/router.js';
import type { Page, ReportResponse, SavedReport } from '../../lib/types.js';
import { useFetch } from '../../lib/use-fetch.js';
import { ResultView, StartExport, useLoad } from './shared.js';

/** What a saved report stands for, in words. */
export function useDescribe(): (saved: SavedReport) => string {
  const { t } = useApp();
  return (saved) =>
    'report' in saved.definition
      ? t(reportTitle(saved.definition.report))
      : t('ins.saved.builderOf', { measures: saved.definition.builder.measures.join(', ') });
}

/** The store's saved reports: open (run), rename, delete. */
export function SavedReports() {
  const { t, lang, fmt, can, canWrite } = useApp();
  const [version, setVersion] = useState(0);
  const { data, error } = useLoad<Page<SavedReport>>('/admin/insights/saved-reports?limit=100', version);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const [actionError, setActionError] = useState<unknown>(null);
  const describe = useDescribe();
  const manage = canWrite && can('insights.reports.manage');
  const act = (promise: Promise<unknown>) =>
    promise.then(() => {
      setRenaming(null);
      setVersion(version + 1);
    }, setActionError);
  return (
    <section aria-labelledby="page-title" data-page="saved-reports">
      <h1 id="page-title">{t('ins.nav.saved')}</h1>
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {actionError ? <ProblemView error={actionError} lang={lang} /> : null}
      {!data && !error ? <p role="status">{t('app.loading')}</p> : null}
      {data && data.items.length === 0 ? <p>{t('ins.saved.empty')}</p> : null}
      {data && data.items.length > 0 ? (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('ins.nav.saved')}>
          <table>
            <caption class="visually-hidden">{t('ins.nav.saved')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('ins.saved.name')}</th>
                <th scope="col">{t('ins.saved.definition')}</th>
                <th scope="col">{t('ins.saved.updated')}</th>
                <th scope="col">{t('ins.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((saved) => (
                <tr key={saved.id} data-saved-report={saved.name}>
                  <td>
                    {renaming === saved.id ? (
                      <form
                        class="ins-inline"
                        onSubmit={(event) => {
                          event.preventDefault();
                          act(api('PATCH', `/admin/insights/saved-reports/${saved.id}`, { name: newName }));
                        }}
                      >
                        <label>
                          <span class="visually-hidden">{t('ins.saved.newName')}</span>
                          <input value={newName} required onInput={(event) => setNewName(event.currentTarget.value)} />
                        </label>
                        <button type="submit" data-write>
                          {t('ins.save')}
                        </button>
                        <button type="button" onClick={() => setRenaming(null)}>
                          {t('ins.cancel')}
                        </button>
                      </form>
                    ) : (
                      saved.name
                    )}
                  </td>
                  <td>{describe(saved)}</td>
                  <td>{fmt.dateTime(saved.updatedAt)}</td>
                  <td class="ins-actions">
                    <button type="button" onClick={() => navigate(`/insights/saved-reports/${saved.id}`)}>
                      {t('ins.saved.open', { name: saved.name })}
                    </button>
                    {manage ? (
                      <>
                        <button
                          type="button"
                          data-write
                          onClick={() => {
                            setRenaming(saved.id);
                            setNewName(saved.name);
                          }}
                        >
                          {t('ins.saved.rename')}
                        </button>
                        <button
                          type="button"
                          data-write
                          onClick={() => {
                            if (window.confirm(t('ins.saved.confirmDelete', { name: saved.name })))
                              act(api('DELETE', `/admin/insights/saved-reports/${saved.id}`));
                          }}
                        >
                          {t('ins.delete')}
                        </button>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

/** A saved report, run: `GET /saved-reports/{id}/run`, with an export of it. */
export function SavedReportRun({ id }: { id: string }) {
  const { t, lang } = useApp();
  const saved = useFetch<SavedReport>(`/admin/insights/saved-reports/${id}`);
  const run = useFetch<ReportResponse>(`/admin/insights/saved-reports/${id}/run`);
  const title = saved.data?.name ?? t('ins.nav.saved');
  return (
    <section aria-labelledby="page-title" aria-busy={run.loading} data-page="saved-report">
      <h1 id="page-title">{title}</h1>
      {saved.error ? <ProblemView error={saved.error} lang={lang} /> : null}
      {run.error ? <ProblemView error={run.error} lang={lang} /> : null}
      {!run.data && !run.error ? <p role="status">{t('app.loading')}</p> : null}
      <StartExport source={{ savedReportId: id }} />
      {run.data ? <ResultView data={run.data} title={title} /> : null}
    </section>
  );
}
