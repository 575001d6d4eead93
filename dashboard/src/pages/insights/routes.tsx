import type { ComponentChildren, ComponentType, JSX } from 'preact';
import type { MessageKey } from '../../i18n/messages.js';
import { useApp } from '../../lib/app-context.js';
import { Builder } from './Builder.js';
import { Exports } from './Exports.js';
import { SavedReportRun, SavedReports } from './SavedReports.js';
import { Schedules } from './Schedules.js';
import { Settings } from './Settings.js';

type LinkProps = { to: string; current: string; children: ComponentChildren };

/** The Insights tools in the side navigation: what the member may not use is not offered. */
export function InsightsNav({ path, Link }: { path: string; Link: ComponentType<LinkProps> }) {
  const { t, can, entitled } = useApp();
  const view = (['sales', 'products', 'customers', 'fulfilment', 'finance', 'behaviour'] as const).some((area) =>
    can(`insights.${area}.view`),
  );
  if (!view) return null;
  const entries: [string, MessageKey][] = [];
  if (can('insights.builder.use')) entries.push(['/insights/builder', 'ins.nav.builder']);
  entries.push(['/insights/saved-reports', 'ins.nav.saved']);
  if (entitled('feature:export_csv')) entries.push(['/insights/exports', 'ins.nav.exports']);
  if (entitled('feature:schedules')) entries.push(['/insights/schedules', 'ins.nav.schedules']);
  entries.push(['/insights/settings', 'ins.nav.settings']);
  return (
    <ul class="ins-nav" aria-label={t('nav.insights')}>
      {entries.map(([to, key]) => (
        <li key={to}>
          <Link to={to} current={path}>
            {t(key)}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** The page for an Insights tool's path, or null when the path is none of them. */
export function InsightsPage({ path, query }: { path: string; query: URLSearchParams }): JSX.Element | null {
  if (path === '/insights/builder') return <Builder query={query} />;
  if (path === '/insights/saved-reports') return <SavedReports />;
  const saved = /^\/insights\/saved-reports\/([\w-]+)$/.exec(path);
  if (saved) return <SavedReportRun id={saved[1]} key={saved[1]} />;
  if (path === '/insights/exports') return <Exports />;
  if (path === '/insights/schedules') return <Schedules />;
  if (path === '/insights/settings') return <Settings />;
  return null;
}
