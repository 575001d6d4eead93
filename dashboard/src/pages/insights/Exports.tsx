import { DataTable } from '../../components/DataTable.js';
import type { MessageKey } from '../../i18n/messages.js';
import { pick, useApp } from '../../lib/app-context.js';
import { get } from '../../lib/api.js';
import { usePaged, useReloadWhile } from '../../lib/load.js';
import type { InsightsExport } from '../../lib/types.js';

/** The store's exports, newest first and page by page, with their progress (polled while any runs) and download links. */
export function Exports() {
  const { t, tn, lang, fmt } = useApp();
  const list = usePaged((page) => get('/admin/insights/exports', { query: page }));
  useReloadWhile(list, Boolean(list.data?.items.some((item) => item.status === 'queued' || item.status === 'running')));
  return (
    <section aria-labelledby="page-title" data-page="exports">
      <h1 id="page-title">{t('ins.nav.exports')}</h1>
      <p>{t('ins.exports.hint')}</p>
      <DataTable<InsightsExport>
        label={t('ins.nav.exports')}
        empty={t('ins.exports.empty')}
        rows={list.data?.items}
        error={list.error}
        paging={list}
        rowKey={(item) => item.id}
        rowData={(item) => ({ 'data-export': item.id, 'data-status': item.status })}
        columns={[
          { header: t('ins.exports.file'), cell: (item) => item.file?.name ?? `${item.format.toUpperCase()} · ${item.id}` },
          { header: t('ins.exports.requested'), cell: (item) => fmt.dateTime(item.createdAt) },
          {
            header: t('ins.exports.status'),
            cell: (item) =>
              `${t(`ins.export.status.${item.status}` as MessageKey)}${item.error ? ` · ${pick(lang, item.error, 'message')}` : ''}`,
          },
          {
            header: t('ins.exports.progress'),
            cell: (item) => (
              <>
                <progress max={100} value={item.progress.percent ?? 0} aria-label={t('ins.export.progress')} />{' '}
                {tn('ins.export.rows', item.progress.rows, {
                  total: item.progress.totalRows === null ? '…' : fmt.number(item.progress.totalRows),
                })}
              </>
            ),
          },
          {
            header: t('ins.actions'),
            cell: (item) =>
              item.file?.expired ? (
                t('ins.exports.expired')
              ) : item.status === 'succeeded' && item.file ? (
                <a href={`/admin/insights/exports/${item.id}/file`} download={item.file.name}>
                  {t('ins.export.download', { name: item.file.name })}
                </a>
              ) : null,
          },
        ]}
      />
    </section>
  );
}
