import { useEffect, useState } from 'preact/hooks';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { get } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import type { InsightsExport, Page } from '../../lib/types.js';

/** The store's exports, newest first, with their progress (polled while any runs) and download links. */
export function Exports() {
  const { t, lang, fmt } = useApp();
  const [data, setData] = useState<Page<InsightsExport> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      get<Page<InsightsExport>>('/admin/insights/exports?limit=50').then(
        (page) => {
          if (!live) return;
          setData(page);
          if (page.items.some((item) => item.status === 'queued' || item.status === 'running')) timer = setTimeout(load, 1500);
        },
        (caught: unknown) => live && setError(caught),
      );
    void load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  return (
    <section aria-labelledby="page-title" data-page="exports">
      <h1 id="page-title">{t('ins.nav.exports')}</h1>
      <p>{t('ins.exports.hint')}</p>
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {!data && !error ? <p role="status">{t('app.loading')}</p> : null}
      {data && data.items.length === 0 ? <p>{t('ins.exports.empty')}</p> : null}
      {data && data.items.length > 0 ? (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('ins.nav.exports')}>
          <table>
            <caption class="visually-hidden">{t('ins.nav.exports')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('ins.exports.file')}</th>
                <th scope="col">{t('ins.exports.status')}</th>
                <th scope="col">{t('ins.exports.progress')}</th>
                <th scope="col">{t('ins.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((item) => (
                <tr key={item.id} data-export={item.id} data-status={item.status}>
                  <td>{item.file?.name ?? item.id}</td>
                  <td>
                    {t(`ins.export.status.${item.status}` as MessageKey)}
                    {item.error ? ` · ${pick(lang, item.error, 'message')}` : ''}
                  </td>
                  <td>
                    <progress max={100} value={item.progress?.percent ?? 0} aria-label={t('ins.export.progress')} />{' '}
                    {t('ins.export.rows', {
                      rows: fmt.number(item.progress?.rows ?? 0),
                      total: item.progress?.totalRows == null ? '…' : fmt.number(item.progress.totalRows),
                    })}
                  </td>
                  <td>
                    {item.status === 'succeeded' && item.file && !item.file.expired ? (
                      <a href={`/admin/insights/exports/${item.id}/file`} download={item.file.name}>
                        {t('ins.export.download', { name: item.file.name })}
                      </a>
                    ) : item.file?.expired ? (
                      t('ins.exports.expired')
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
