import { useState } from 'preact/hooks';
import { pick, useApp } from '../../lib/app-context.js';
import type { ComponentChildren } from 'preact';
import type { JsonSchema, Labelled, Transform, TransformStep } from './types.js';

/**
 * A field's transforms, in order, each with inputs for its args driven by the transform's JSON schema:
 * text, integer / number, true/false, a choice (enum), and an object of strings as key / value rows (map_values).
 * Transforms and args are named by their labels, their identifiers beside them as secondary text.
 */
export function TransformSteps({
  field,
  fieldLabel,
  steps,
  transforms,
  disabled,
  onChange,
}: {
  field: string;
  fieldLabel: string;
  steps: TransformStep[];
  transforms: Transform[];
  disabled: boolean;
  onChange: (steps: TransformStep[]) => void;
}) {
  const { t, lang } = useApp();
  const [adding, setAdding] = useState('');
  const change = (index: number, step: TransformStep) => onChange(steps.map((item, at) => (at === index ? step : item)));
  return (
    <div class="steps">
      <ol>
        {steps.map((step, index) => {
          const transform = transforms.find((item) => item.name === step.name);
          const label = transform ? pick(lang, transform, 'label') : step.name;
          return (
            <li key={`${index}-${step.name}`} data-transform={step.name}>
              <div class="step-head">
                <strong title={transform ? pick(lang, transform, 'description') : undefined}>{label}</strong>
                <code class="identifier">{step.name}</code>
                {disabled ? null : (
                  <button
                    type="button"
                    class="small"
                    aria-label={t('hub.transforms.remove', { name: label, field: fieldLabel })}
                    onClick={() => onChange(steps.filter((_, at) => at !== index))}
                  >
                    ×
                  </button>
                )}
              </div>
              {transform?.args.properties ? (
                <Args
                  id={`${field}-${index}`}
                  schema={transform.args}
                  labels={transform.argLabels}
                  args={step.args ?? {}}
                  disabled={disabled}
                  onChange={(args) => change(index, Object.keys(args).length ? { name: step.name, args } : { name: step.name })}
                />
              ) : null}
            </li>
          );
        })}
      </ol>
      {disabled ? null : (
        <div class="add-step">
          <select
            value={adding}
            aria-label={t('hub.transforms.choose', { field: fieldLabel })}
            onChange={(event) => setAdding(event.currentTarget.value)}
          >
            <option value="">{t('hub.transforms.none')}</option>
            {transforms.map((transform) => (
              <option value={transform.name} key={transform.name} title={pick(lang, transform, 'description')}>
                {pick(lang, transform, 'label')} ({transform.name})
              </option>
            ))}
          </select>
          <button
            type="button"
            class="small"
            disabled={!adding}
            aria-label={t('hub.transforms.addTo', { field: fieldLabel })}
            onClick={() => {
              onChange([...steps, { name: adding }]);
              setAdding('');
            }}
          >
            {t('hub.transforms.add')}
          </button>
        </div>
      )}
    </div>
  );
}

const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

function Args({
  id,
  schema,
  labels,
  args,
  disabled,
  onChange,
}: {
  id: string;
  schema: JsonSchema;
  labels: Record<string, Labelled>;
  args: Record<string, unknown>;
  disabled: boolean;
  onChange: (args: Record<string, unknown>) => void;
}) {
  const { t, lang } = useApp();
  const set = (name: string, value: unknown) => {
    const next = { ...args };
    if (value === undefined || value === '') delete next[name];
    else next[name] = value;
    onChange(next);
  };
  return (
    <div class="args">
      {Object.entries(schema.properties ?? {}).map(([name, property]) => {
        const types = typesOf(property);
        const label = (
          <>
            {labels[name] ? pick(lang, labels[name], 'label') : name}
            {schema.required?.includes(name) ? ' *' : ''} <code class="identifier">{name}</code>
          </>
        );
        const inputId = `arg-${id}-${name}`;
        const value = args[name];
        if (property.enum)
          return (
            <label key={name}>
              <span>{label}</span>
              <select
                id={inputId}
                disabled={disabled}
                value={value === undefined ? '' : String(value)}
                onChange={(event) => set(name, event.currentTarget.value || undefined)}
              >
                <option value="">
                  {property.default === undefined ? '—' : t('hub.transforms.default', { value: String(property.default) })}
                </option>
                {property.enum.map((option) => (
                  <option value={String(option)} key={String(option)}>
                    {String(option)}
                  </option>
                ))}
              </select>
            </label>
          );
        if (types.includes('boolean') && types.length === 1)
          return (
            <label key={name} class="check">
              <input
                type="checkbox"
                id={inputId}
                disabled={disabled}
                checked={value === undefined ? property.default === true : value === true}
                onChange={(event) =>
                  set(name, event.currentTarget.checked === (property.default === true) ? undefined : event.currentTarget.checked)
                }
              />
              <span>{label}</span>
            </label>
          );
        if (types.includes('integer') || (types.includes('number') && !types.includes('string')))
          return (
            <label key={name}>
              <span>{label}</span>
              <input
                type="number"
                id={inputId}
                disabled={disabled}
                step={types.includes('integer') ? 1 : 'any'}
                value={value === undefined ? '' : String(value)}
                placeholder={property.default === undefined ? undefined : String(property.default)}
                onInput={(event) => set(name, event.currentTarget.value === '' ? undefined : Number(event.currentTarget.value))}
              />
            </label>
          );
        if (types.includes('object'))
          return (
            <KeyValues
              key={name}
              label={label}
              value={(value as Record<string, unknown>) ?? {}}
              disabled={disabled}
              onChange={(map) => set(name, Object.keys(map).length ? map : undefined)}
            />
          );
        // Text (and text-or-list args such as parse_date's formats: one per line becomes a list).
        const multi = types.includes('array');
        return (
          <label key={name}>
            <span>{label}</span>
            {multi ? (
              <textarea
                id={inputId}
                rows={2}
                dir="ltr"
                disabled={disabled}
                value={Array.isArray(value) ? value.join('\n') : value === undefined ? '' : String(value)}
                onInput={(event) => {
                  const lines = event.currentTarget.value.split('\n').filter((line) => line !== '');
                  set(name, lines.length === 0 ? undefined : lines.length === 1 ? lines[0] : lines);
                }}
              />
            ) : (
              <input
                id={inputId}
                dir="auto"
                disabled={disabled}
                value={value === undefined ? '' : String(value)}
                placeholder={property.default === undefined ? undefined : String(property.default)}
                onInput={(event) => set(name, event.currentTarget.value === '' ? undefined : event.currentTarget.value)}
              />
            )}
          </label>
        );
      })}
    </div>
  );
}

/** An object of strings (map_values' map) as key / value rows. */
function KeyValues({
  label,
  value,
  disabled,
  onChange,
}: {
  label: ComponentChildren;
  value: Record<string, unknown>;
  disabled: boolean;
  onChange: (map: Record<string, unknown>) => void;
}) {
  const { t, fmt } = useApp();
  const [pairs, setPairs] = useState<[string, string][]>(() => {
    const entries = Object.entries(value).map(([key, item]) => [key, String(item)] as [string, string]);
    return entries.length ? entries : [['', '']];
  });
  const update = (next: [string, string][]) => {
    setPairs(next);
    onChange(Object.fromEntries(next.filter(([key, item]) => key !== '' || item !== '')));
  };
  return (
    <fieldset class="key-values">
      <legend>{label}</legend>
      {pairs.map(([key, item], index) => (
        <div class="pair" key={index}>
          <input
            aria-label={t('hub.transforms.key', { n: fmt.number(index + 1) })}
            dir="auto"
            disabled={disabled}
            value={key}
            onInput={(event) => update(pairs.map((pair, at) => (at === index ? [event.currentTarget.value, pair[1]] : pair)))}
          />
          <span aria-hidden="true">→</span>
          <input
            aria-label={t('hub.transforms.value', { n: fmt.number(index + 1) })}
            dir="auto"
            disabled={disabled}
            value={item}
            onInput={(event) => update(pairs.map((pair, at) => (at === index ? [pair[0], event.currentTarget.value] : pair)))}
          />
        </div>
      ))}
      {disabled ? null : (
        <button type="button" class="small" onClick={() => setPairs([...pairs, ['', '']])}>
          {t('hub.transforms.addPair')}
        </button>
      )}
    </fieldset>
  );
}
