import { useState } from 'preact/hooks';
import { DataTable } from '../../components/DataTable.js';
import { ProblemView } from '../../components/Problem.js';
import { answer, client, get } from '../../lib/api.js';
import { useApp } from '../../lib/app-context.js';
import { useLoad, usePaged } from '../../lib/load.js';
import { reportTitle } from '../../lib/reports.js';
import { navigate } from '../../lib/router.js';
import type { SavedReport } from '../../lib/types.js';
import { builderPath } from './Builder.js';
import { ResultView } from './ReportView.js';
import { StartExport } from './shared.js';

/** What a saved report stands for, in words. */
function useDescribe(): (saved: SavedReport) => string {
  const { t } = useApp();
  return ({ definition }) =>
    definition.report
      ? t(reportTitle(definition.report))
      : t('ins.saved.builderOf', { measures: definition.builder?.measures.join(', ') ?? '' });
}

/** A builder report opens in the builder, filled in, for a member who may use it. */
function OpenInBuilder({ saved }: { saved: SavedReport }) {
  const { t, can, entitled } = useApp();
  if (!saved.definition.builder || !can('insights.builder.use') || !entitled('feature:builder')) return null;
  const path = builderPath(saved.id, saved.definition.builder);
  return (
    <button type="button" onClick={() => navigate(path)}>
      {t('ins.saved.openInBuilder', { name: saved.name })}
    </button>
  );
}

/** The store's saved reports, page by page: open (run), open in the builder, rename, delete. */
export function SavedReports() {
  const { t, lang, fmt, can, canWrite } = useApp();
  const list = usePaged((page) => get('/admin/insights/saved-reports', { query: page }));
  const [renaming, setRenaming] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const [actionError, setActionError] = useState<unknown>(null);
  const describe = useDescribe();
  const manage = canWrite && can('insights.reports.manage');
  const act = (promise: Promise<unknown>) =>
    promise.then(() => {
      setRenaming(null);
      setActionError(null);
      list.reload();
    }, setActionError);
  return (
    <section aria-labelledby="page-title" data-page="saved-reports">
      <h1 id="page-title">{t('ins.nav.saved')}</h1>
      {actionError ? <ProblemView error={actionError} lang={lang} /> : null}
      <DataTable<SavedReport>
        label={t('ins.nav.saved')}
        empty={t('ins.saved.empty')}
        rows={list.data?.items}
        error={list.error}
        paging={list}
        rowKey={(saved) => saved.id}
        rowData={(saved) => ({ 'data-saved-report': saved.name })}
        columns={[
          {
            header: t('ins.saved.name'),
            cell: (saved) =>
              renaming === saved.id ? (
                <form
                  class="ins-inline"
                  onSubmit={(event) => {
                    event.preventDefault();
                    act(
                      answer(
                        client.PATCH('/admin/insights/saved-reports/{id}', { params: { path: { id: saved.id } }, body: { name: newName } }),
                      ),
                    );
                  }}
                >
                  <label>
                    <span class="visually-hidden">{t('ins.saved.newName')}</span>
                    <input value={newName} required maxLength={120} onInput={(event) => setNewName(event.currentTarget.value)} />
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
              ),
          },
          { header: t('ins.saved.definition'), cell: describe },
          { header: t('ins.saved.updated'), cell: (saved) => fmt.dateTime(saved.updatedAt) },
          {
            header: t('ins.actions'),
            cell: (saved) => (
              <div class="ins-actions">
                <button type="button" onClick={() => navigate(`/insights/saved-reports/${saved.id}`)}>
                  {t('ins.saved.open', { name: saved.name })}
                </button>
                <OpenInBuilder saved={saved} />
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
                          act(answer(client.DELETE('/admin/insights/saved-reports/{id}', { params: { path: { id: saved.id } } })));
                      }}
                    >
                      {t('ins.delete')}
                    </button>
                  </>
                ) : null}
              </div>
            ),
          },
        ]}
      />
    </section>
  );
}

/** A saved report, run: `GET /saved-reports/{id}/run`, with an export of it. */
export function SavedReportRun({ id }: { id: string }) {
  const { t, lang } = useApp();
  const saved = useLoad(() => get('/admin/insights/saved-reports/{id}', { path: { id } }), [id]);
  const run = useLoad(() => get('/admin/insights/saved-reports/{id}/run', { path: { id } }), [id]);
  const title = saved.data?.name ?? t('ins.nav.saved');
  return (
    <section aria-labelledby="page-title" aria-busy={run.loading} data-page="saved-report">
      <h1 id="page-title">{title}</h1>
      {saved.error ? <ProblemView error={saved.error} lang={lang} /> : null}
      {run.error ? <ProblemView error={run.error} lang={lang} fields /> : null}
      {!run.data && !run.error ? <p role="status">{t('app.loading')}</p> : null}
      <div class="ins-row">
        {saved.data ? <OpenInBuilder saved={saved.data} /> : null}
        <StartExport source={{ savedReportId: id }} />
      </div>
      {run.data ? <ResultView data={run.data} title={title} /> : null}
    </section>
  );
}
