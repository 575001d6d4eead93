import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { ApiError } from '../lib/api.js';
import type { Schema } from '../lib/types.js';
import { pick, useApp } from '../lib/app-context.js';

/** One entry of a refusal's or a rejected row's `errors`: the field it is about and why. */
type FieldError = Schema<'RowErrorDoc'>;

/** The `errors` of a refusal that names fields (validation_failed, mapping_invalid…); none for any other error. */
export function fieldErrorsOf(error: unknown): FieldError[] {
  return (error instanceof ApiError && error.problem.errors) || [];
}

/**
 * A `controlOf` for `useFieldErrors`: the control named like the field, else the closest one it is inside
 * (`cadence` for `cadence.time`, `filters` for `filters[0].values`), else none.
 */
export function nearestControl(controls: readonly string[]): (field: string) => string | undefined {
  return (field) => {
    let found: string | undefined;
    for (const control of controls) {
      const inside = field === control || field.startsWith(`${control}.`) || field.startsWith(`${control}[`);
      if (inside && control.length > (found?.length ?? -1)) found = control;
    }
    return found;
  };
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
 * `own`: the form's own message about a control, shown the same way (a check made before sending).
 */
export function useFieldErrors(
  error: unknown,
  controlOf: (field: string) => string | undefined,
  own: Record<string, string | false | null | undefined> = {},
): FieldErrors {
  const { lang } = useApp();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useId();
  const idOf = (kind: 'hint' | 'error', name: string) => `${form}-${kind}-${name}`;
  const byControl = new Map<string, string[]>();
  const rest: string[] = [];
  for (const [control, message] of Object.entries(own)) if (message) byControl.set(control, [message]);
  for (const fieldError of fieldErrorsOf(error)) {
    const control = controlOf(fieldError.field);
    const message = pick(lang, fieldError, 'message');
    // The API's field is named too where it says more than the control does (a transform of a row).
    const named = fieldError.field === control ? message : `${message} (${fieldError.field})`;
    if (control === undefined) rest.push(named);
    else byControl.set(control, [...(byControl.get(control) ?? []), named]);
  }
  const ownShown = Object.keys(own)
    .filter((control) => own[control])
    .join(' ');
  useEffect(() => {
    if (byControl.size) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error, ownShown]);
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

/**
 * Controls a refusal speaks of together (`cadence`: its frequency, time and day): a fieldset described
 * by the messages about `name`, shown at its end.
 */
export function FieldGroup({
  legend,
  name,
  errors,
  class: className,
  children,
}: {
  legend: ComponentChildren;
  name: string;
  errors: FieldErrors;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <fieldset class={className} aria-describedby={errors.control(name)['aria-describedby']}>
      <legend>{legend}</legend>
      {children}
      {errors.messages(name)}
    </fieldset>
  );
}
