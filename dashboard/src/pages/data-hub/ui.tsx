import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ProblemView } from '../../components/Problem.js';
import type { MessageKey } from '../../i18n/messages.js';
import { api, ApiError } from '../../lib/api.js';
import { pick, useApp } from '../../lib/app-context.js';
import { navigate } from '../../lib/router.js';
import { COUNTS, type Bilingual, type FieldError, type Run } from './types.js';

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
  return { busy, error, run };
}

/** The `errors` of a refusal that names fields (validation_failed, mapping_invalid…); none for any other error. */
function fieldErrorsOf(error: unknown): FieldError[] {
  const errors = error instanceof ApiError ? error.problem.errors : undefined;
  return Array.isArray(errors) ? (errors as FieldError[]) : [];
}

export interface FieldErrors {
  /** Put on the form: after a refusal, the first control it names gets the focus. */
  formRef: { current: HTMLFormElement | null };
  /** The id of an element about the control `name` (`kind`: hint, error), unique on the page whatever the forms on it. */
  idOf: (kind: 'hint' | 'error', name: string) => string;
  /** `aria-invalid` and `aria-describedby` of the control `name` (`hint`: the id of its own hint, kept first). */
  control: (name: string, hint?: string) => { 'aria-invalid'?: 'true'; 'aria-describedby'?: string };
  /** The messages about the control `name`, shown beside it. */
  messages: (name: string) => ComponentChildren;
  /** The messages about fields the form has no control for. */
  rest: ComponentChildren;
}

/**
 * A refusal's field errors laid out on a form: each beside the control it is about, which is marked
 * invalid and described by it; those about fields the form does not show are listed together.
 * `controlOf` names the form's control for an API field (`config.host`, `fields[2].source`), or undefined.
 */
export function useFieldErrors(error: unknown, controlOf: (field: string) => string | undefined): FieldErrors {
  const { lang } = useApp();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useId();
  const idOf = (kind: 'hint' | 'error', name: string) => `${form}-${kind}-${name}`;
  const byControl = new Map<string, string[]>();
  const rest: string[] = [];
  for (const fieldError of fieldErrorsOf(error)) {
    const control = controlOf(fieldError.field);
    const message = pick(lang, fieldError, 'message');
    // The API's field is named too where it says more than the control does (a transform of a row).
    const named = fieldError.field === control ? message : `${message} (${fieldError.field})`;
    if (control === undefined) rest.push(named);
    else byControl.set(control, [...(byControl.get(control) ?? []), named]);
  }
  useEffect(() => {
    if (byControl.size) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);
  const list = (messages: string[], name: string, id?: string) => (
    <ul class="field-errors" id={id} data-field-errors={name}>
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
  return {
    formRef,
    idOf,
    control: (name, hint) => {
      const invalid = byControl.has(name);
      const describedBy = [hint, invalid ? idOf('error', name) : undefined].filter(Boolean).join(' ');
      return { 'aria-invalid': invalid ? 'true' : undefined, 'aria-describedby': describedBy || undefined };
    },
    messages: (name) => {
      const messages = byControl.get(name);
      return messages ? list(messages, name, idOf('error', name)) : null;
    },
    rest: rest.length ? list(rest, 'form') : null,
  };
}

/** What a `Field` gives its control: its name, and whether it is invalid and what describes it. */
export type ControlProps = { name: string } & ReturnType<FieldErrors['control']>;

/**
 * A labelled form control with its hint and the refusal's messages about it shown below it: outside the
 * label, so that they describe the control without becoming part of its name.
 */
export function Field({
  label,
  name,
  errors,
  hint,
  check,
  children,
}: {
  label: string;
  /** The control's name: the API's field it sends (`config.host`). */
  name: string;
  errors: FieldErrors;
  hint?: string;
  /** A checkbox: label and box on one line. */
  check?: boolean;
  children: (control: ControlProps) => ComponentChildren;
}) {
  const hintId = hint ? errors.idOf('hint', name) : undefined;
  return (
    <div class="field">
      <label class={check ? 'check' : undefined}>
        <span>{label}</span>
        {children({ name, ...errors.control(name, hintId) })}
      </label>
      {hint ? (
        <span class="hint" id={hintId}>
          {hint}
        </span>
      ) : null}
      {errors.messages(name)}
    </div>
  );
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
