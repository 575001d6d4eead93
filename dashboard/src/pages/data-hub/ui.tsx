import type { ComponentChildren } from 'preact';
import { useCallback, useState } from 'preact/hooks';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { pick, useApp } from '../../lib/app-context.js';
import { navigate } from '../../lib/router.js';
import { RUN_COUNTS, UNDO_COUNTS, type Count, type Flow, type Run } from './types.js';

/** A link inside the app: a real href (new tab works), client-side navigation on a plain click. */
export function HubLink({
  to,
  children,
  class: className,
  write,
}: {
  to: string;
  children: ComponentChildren;
  class?: string;
  /** Leads to a write (New …): marked `data-write` like every write control. */
  write?: boolean;
}) {
  return (
    <a
      href={`/admin/app${to}`}
      class={className}
      data-write={write || undefined}
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
export function useBilingual(): (value: { message_en?: string; message_ar?: string } | null | undefined) => string {
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
  return { busy, error, run };
}

export function ErrorView({ error }: { error: unknown }) {
  const { lang } = useApp();
  return error ? <ProblemView error={error} lang={lang} /> : null;
}

export function StatusBadge({ status }: { status: string }) {
  const { t } = useApp();
  return (
    <span class={`badge badge-${status}`} data-status={status}>
      {t(`hub.status.${status}` as MessageKey)}
    </span>
  );
}

/** A run's counts as a definition list: those its flow's direction has, or an undo's (named for what an undo does). */
export function Counts({ run, direction }: { run: Run; direction: Flow['direction'] }) {
  const { t, fmt } = useApp();
  const shown: [Count, string][] =
    run.trigger === 'undo'
      ? UNDO_COUNTS.map((count) => [count, t(`hub.undoCount.${count}`)])
      : RUN_COUNTS[direction].map((count) => [count, t(`hub.count.${count}`)]);
  return (
    <dl class="counts" data-counts>
      {shown.map(([count, label]) => (
        <div key={count} data-count={count}>
          <dt>{label}</dt>
          <dd>{fmt.number(run.counts?.[count] ?? 0)}</dd>
        </div>
      ))}
    </dl>
  );
}
