import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { api, get } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import { navigate } from '../../lib/router.js';
import { COUNTS, type Bilingual, type Page, type Run } from './types.js';

/** A link inside the app: a real href (new tab works), client-side navigation on a plain click. */
export function HubLink({ to, children, class: className }: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      href={`/admin/app${to}`}
      class={className}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
        document.getElementById('main')?.focus();
      }}
    >
      {children}
    </a>
  );
}

/** A bilingual message of the API in the current language. */
export function useBilingual(): (value: Bilingual | null | undefined) => string {
  const { lang } = useApp();
  return (value) => (value ? pick(lang, value, 'message') : '');
}

/** One call at a time: its busy state and its error (shown by `ProblemView`). */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T,>(work: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await work();
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

export function ErrorView({ error }: { error: unknown }) {
  const { lang } = useApp();
  return error ? <ProblemView error={error} lang={lang} /> : null;
}

/** GET with a reload: `reload()` fetches again and keeps the page as it is meanwhile. */
export function useLoad<T>(path: string | null): { data: T | null; error: unknown; reload: () => void; set: (data: T) => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    get<T>(path).then(
      (answer) => {
        if (!live) return;
        setData(answer);
        setError(null);
      },
      (caught: unknown) => live && setError(caught),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  return { data, error, reload: () => setTick((n) => n + 1), set: setData };
}

/** A list paged with `cursor`: the pages' cursors are kept so that Previous goes back. */
export function usePaged<T>(path: string | null, limit = 25) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const separator = path?.includes('?') ? '&' : '?';
  const loaded = useLoad<Page<T>>(
    path === null ? null : `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  );
  useEffect(() => setCursors([]), [path]);
  return {
    ...loaded,
    page: cursors.length + 1,
    next: loaded.data?.nextCursor ? () => setCursors([...cursors, loaded.data!.nextCursor!]) : null,
    previous: cursors.length ? () => setCursors(cursors.slice(0, -1)) : null,
  };
}

export function Pager({ page, next, previous }: { page: number; next: (() => void) | null; previous: (() => void) | null }) {
  const { t } = useApp();
  if (!next && !previous) return null;
  return (
    <div class="pager">
      <button type="button" onClick={previous ?? undefined} disabled={!previous}>
        {t('table.previous')}
      </button>
      <span>{t('table.page', { page })}</span>
      <button type="button" onClick={next ?? undefined} disabled={!next}>
        {t('table.next')}
      </button>
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const { t } = useApp();
  return (
    <span class={`badge badge-${status}`} data-status={status}>
      {t(`hub.status.${status}` as MessageKey)}
    </span>
  );
}

/** A run's counts as a definition list. */
export function Counts({ run }: { run: Run }) {
  const { t, fmt } = useApp();
  return (
    <dl class="counts" data-counts>
      {COUNTS.map((count) => (
        <div key={count} data-count={count}>
          <dt>{t(`hub.count.${count}`)}</dt>
          <dd>{fmt.number(run.counts?.[count] ?? 0)}</dd>
        </div>
      ))}
    </dl>
  );
}

export const hubPost = <T,>(path: string, body: unknown = {}) => api<T>('POST', `/admin/data-hub${path}`, body);
export const hubPut = <T,>(path: string, body: unknown) => api<T>('PUT', `/admin/data-hub${path}`, body);
export const hubDelete = (path: string) => api<void>('DELETE', `/admin/data-hub${path}`);
export const HUB = '/admin/data-hub';
