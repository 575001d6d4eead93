import type { MessageKey } from '../../i18n/messages.js';
import { useApp } from '../../lib/app-context.js';
import { ConnectionPage, ConnectionsList } from './Connections.js';
import { FlowPage, FlowsList } from './Flows.js';
import { MappingEditor, MappingsList } from './Mappings.js';
import { RunPage } from './Runs.js';

/** The data hub's pages under /admin/app/data-hub/…: lists, one item (or `new`), and a run. */
export function DataHubPage({ path }: { path: string }) {
  const { t, can } = useApp();
  const match = /^\/data-hub\/(connections|mappings|flows|runs)(?:\/([\w-]+))?$/.exec(path);
  if (!match) return <p role="alert">{t('report.notFound')}</p>;
  const [, area, id] = match;
  const allowed = area === 'connections' ? can('data.flows.manage') || can('data.connections.manage') : can('data.flows.read');
  if (!allowed) return <p role="alert">{t('hub.notAllowed', { area: t(`nav.${area === 'runs' ? 'flows' : area}` as MessageKey) })}</p>;
  if (area === 'connections') return id ? <ConnectionPage id={id} key={id} /> : <ConnectionsList />;
  if (area === 'mappings') return id ? <MappingEditor id={id} key={id} /> : <MappingsList />;
  if (area === 'flows') return id ? <FlowPage id={id} key={id} /> : <FlowsList />;
  return id ? <RunPage id={id} key={id} /> : <p role="alert">{t('report.notFound')}</p>;
}
