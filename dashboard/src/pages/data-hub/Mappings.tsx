import { useEffect, useMemo, useState } from 'preact/hooks';
import { DataTable } from '../../components/DataTable.js';
import { Field, useFieldErrors } from '../../components/fields.js';
import { answer, client, get } from '../../lib/api.js';
import type { Schema } from '../../lib/types.js';
import { pick, useApp } from '../../lib/app-context.js';
import { getAll, useLoad, usePaged } from '../../lib/load.js';
import { navigate } from '../../lib/router.js';
import { TransformSteps } from './TransformSteps.js';
import type { Mapping, MappingField, MappingVersion, Structure, TransformStep } from './types.js';
import { ErrorView, HubLink, useAction } from './ui.js';

export function MappingsList() {
  const { t, lang, can, canWrite, fmt } = useApp();
  const list = usePaged((page) => answer<Schema<'MappingPageDoc'>>(client.GET('/admin/data-hub/mappings', { params: { query: page } })));
  const structures = useLoad(() => get('/admin/data-hub/structures'));
  const structureLabel = (name: string) => {
    const structure = structures.data?.items.find((item) => item.name === name);
    return structure ? pick(lang, structure, 'label') : name;
  };
  return (
    <section aria-labelledby="page-title" class="hub">
      <div class="page-head">
        <h1 id="page-title">{t('nav.mappings')}</h1>
        {canWrite && can('data.flows.manage') ? (
          <HubLink to="/data-hub/mappings/new" class="button" write>
            {t('hub.mappings.new')}
          </HubLink>
        ) : null}
      </div>
      <DataTable
        label={t('nav.mappings')}
        columns={[
          { header: t('hub.field.name'), cell: (mapping) => <HubLink to={`/data-hub/mappings/${mapping.id}`}>{mapping.name}</HubLink> },
          { header: t('hub.field.structure'), cell: (mapping) => structureLabel(mapping.structure) },
          { header: t('hub.field.direction'), cell: (mapping) => t(`hub.direction.${mapping.direction}`) },
          { header: t('hub.mappings.version'), numeric: true, cell: (mapping) => fmt.number(mapping.version) },
          { header: t('hub.field.updatedAt'), cell: (mapping) => fmt.dateTime(mapping.updatedAt) },
        ]}
        rows={list.data?.items}
        rowKey={(mapping) => mapping.id}
        rowData={(mapping) => ({ 'data-mapping': mapping.name })}
        empty={t('hub.mappings.empty')}
        error={list.error ?? structures.error}
        paging={list}
      />
    </section>
  );
}

/** One row of the editor per structure field: where it comes from (import) or the column it is written to (export). */
interface Row {
  field: string;
  column: string;
  transforms: TransformStep[];
  /** Import, a clearable field: an empty cell clears the record's value (else it leaves it as it is). */
  clearWhenEmpty: boolean;
}

function rowsOf(structure: Structure | undefined, direction: 'import' | 'export', fields: MappingField[] = []): Row[] {
  if (!structure) return [];
  const structureField = (field: MappingField) => (direction === 'import' ? field.target : (field.source ?? ''));
  const column = (field: MappingField) => (direction === 'import' ? (field.sources?.join(', ') ?? field.source ?? '') : field.target);
  const rows = structure.fields.map((field) => {
    const found = fields.find((mapped) => structureField(mapped) === field.name);
    return found
      ? { field: field.name, column: column(found), transforms: found.transforms ?? [], clearWhenEmpty: found.clearWhenEmpty === true }
      : {
          field: field.name,
          column: direction === 'export' && fields.length === 0 ? field.name : '',
          transforms: [],
          clearWhenEmpty: false,
        };
  });
  return rows;
}

/** The name of a row's column control, for the refusal's messages about the row's entry. */
const columnControl = (field: string) => `column.${field}`;

export function MappingEditor({ id }: { id: string }) {
  const { t, lang, can, canWrite, fmt } = useApp();
  const structures = useLoad(() => get('/admin/data-hub/structures'));
  const transforms = useLoad(() => get('/admin/data-hub/transforms'));
  const path = { params: { path: { id } } };
  const loaded = useLoad(id === 'new' ? null : () => answer<Mapping>(client.GET('/admin/data-hub/mappings/{id}', path)), [id]);
  const versions = useLoad(
    id === 'new' ? null : () => answer<Schema<'MappingVersionListDoc'>>(client.GET('/admin/data-hub/mappings/{id}/versions', path)),
    [id],
  );
  // Every connection of the store, whatever their number, to read a source's fields from.
  const connections = useLoad(
    can('data.flows.manage') ? () => getAll((page) => get('/admin/data-hub/connections', { query: page })) : null,
  );
  const write = canWrite && can('data.flows.manage');
  const mapping = loaded.data;
  const [name, setName] = useState('');
  const [structureName, setStructureName] = useState<Mapping['structure']>('stock');
  const [direction, setDirection] = useState<'import' | 'export'>('import');
  const [rows, setRows] = useState<Row[]>([]);
  const [sourceConnection, setSourceConnection] = useState('');
  const [template, setTemplate] = useState('');
  const [sourceFields, setSourceFields] = useState<string[]>([]);
  /** The structure field of each entry of the `fields` last sent: a refusal names the entries by their index. */
  const [sentRows, setSentRows] = useState<string[]>([]);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const errors = useFieldErrors(action.error, (field) => {
    if (field === 'name') return field;
    const index = /^fields\[(\d+)\]/.exec(field)?.[1];
    const row = index === undefined ? undefined : sentRows[Number(index)];
    return row === undefined ? undefined : columnControl(row);
  });
  const discover = useAction();
  const structure = structures.data?.items.find((item) => item.name === structureName);

  useEffect(() => {
    if (mapping) {
      setName(mapping.name);
      setStructureName(mapping.structure);
      setDirection(mapping.direction);
    }
  }, [mapping]);
  useEffect(() => {
    if (id !== 'new' && !mapping) return;
    const fields = mapping && mapping.structure === structureName && mapping.direction === direction ? mapping.fields : [];
    setRows(rowsOf(structure, direction, fields));
  }, [structure, direction, mapping, id, structureName]);

  const fieldsBody = (): { fields: MappingField[]; rowOf: string[] } => {
    const fields: MappingField[] = [];
    const rowOf: string[] = [];
    rows.forEach((row) => {
      const column = row.column.trim();
      if (!column) return;
      const transformsOf = {
        ...(row.transforms.length ? { transforms: row.transforms } : {}),
        // Only for a field the structure lets an empty cell clear: the API refuses it on any other (not_clearable).
        ...(direction === 'import' && row.clearWhenEmpty && structure?.fields.find((item) => item.name === row.field)?.clearable
          ? { clearWhenEmpty: true }
          : {}),
      };
      if (direction === 'import') {
        const sources = column
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean);
        fields.push(
          sources.length > 1 ? { target: row.field, sources, ...transformsOf } : { target: row.field, source: sources[0], ...transformsOf },
        );
      } else fields.push({ target: column, source: row.field, ...transformsOf });
      rowOf.push(row.field);
    });
    return { fields, rowOf };
  };

  const save = (event: Event) => {
    event.preventDefault();
    const { fields, rowOf } = fieldsBody();
    setSentRows(rowOf);
    setSaved(false);
    void action.run(async () => {
      if (mapping) {
        loaded.set(
          await answer<Mapping>(
            client.PUT('/admin/data-hub/mappings/{id}', { params: { path: { id: mapping.id } }, body: { name, fields } }),
          ),
        );
        versions.reload();
        setSaved(true);
      } else {
        const created = await answer<Mapping>(
          client.POST('/admin/data-hub/mappings', { body: { name, structure: structureName, direction, fields } }),
        );
        navigate(`/data-hub/mappings/${created.id}`);
      }
    });
  };

  const readFields = () =>
    discover.run(async () => {
      const source = await get('/admin/data-hub/connections/{id}/fields', { path: { id: sourceConnection }, query: { template } });
      setSourceFields(source.fields.map((field) => field.name));
    });

  const restore = (version: number) =>
    action.run(async () => {
      loaded.set(await answer<Mapping>(client.POST('/admin/data-hub/mappings/{id}/restore', { ...path, body: { version } })));
      versions.reload();
    });

  if (id !== 'new' && !mapping) return <ErrorView error={loaded.error} />;
  const transformList = transforms.data?.items ?? [];
  return (
    <section aria-labelledby="page-title" class="hub">
      <p>
        <HubLink to="/data-hub/mappings">{t('hub.back.mappings')}</HubLink>
      </p>
      <h1 id="page-title">{mapping ? mapping.name : t('hub.mappings.new')}</h1>
      {mapping ? <p>{t('hub.mappings.current', { version: fmt.number(mapping.version) })}</p> : null}
      <ErrorView error={structures.error ?? transforms.error} />
      <form class="hub-form" ref={errors.formRef} onSubmit={save} aria-labelledby="page-title">
        <fieldset disabled={!write}>
          <legend>{t('hub.mappings.about')}</legend>
          <Field label={t('hub.field.name')} name="name" errors={errors}>
            {(control) => (
              <input {...control} required maxLength={120} value={name} onInput={(event) => setName(event.currentTarget.value)} />
            )}
          </Field>
          <label>
            <span>{t('hub.field.structure')}</span>
            <select
              value={structureName}
              disabled={!!mapping}
              onChange={(event) => setStructureName(event.currentTarget.value as Mapping['structure'])}
            >
              {(structures.data?.items ?? []).map((item) => (
                <option value={item.name} key={item.name}>
                  {pick(lang, item, 'label')} ({item.name})
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>{t('hub.field.direction')}</span>
            <select
              value={direction}
              disabled={!!mapping}
              onChange={(event) => setDirection(event.currentTarget.value as 'import' | 'export')}
            >
              {(structure?.directions ?? ['import', 'export']).map((option) => (
                <option value={option} key={option}>
                  {t(`hub.direction.${option}`)}
                </option>
              ))}
            </select>
          </label>
        </fieldset>
        {direction === 'import' && write && connections.data ? (
          <fieldset class="discover">
            <legend>{t('hub.mappings.sourceFields')}</legend>
            <label>
              <span>{t('hub.field.connection')}</span>
              <select value={sourceConnection} onChange={(event) => setSourceConnection(event.currentTarget.value)}>
                <option value="">—</option>
                {connections.data.map((connection) => (
                  <option value={connection.id} key={connection.id}>
                    {connection.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              <span>{t('hub.field.fileTemplate')}</span>
              <input value={template} dir="ltr" placeholder="stock-*.csv" onInput={(event) => setTemplate(event.currentTarget.value)} />
            </label>
            <button type="button" disabled={!sourceConnection || !template || discover.busy} onClick={() => void readFields()}>
              {t('hub.mappings.readFields')}
            </button>
            <ErrorView error={discover.error} />
            {sourceFields.length ? (
              <p role="status" data-source-fields>
                {t('hub.mappings.found', { fields: sourceFields.join(', ') })}
              </p>
            ) : null}
            <datalist id="source-fields">
              {sourceFields.map((field) => (
                <option value={field} key={field} />
              ))}
            </datalist>
          </fieldset>
        ) : null}
        <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="mapping-rows-caption">
          <table class="hub-table mapping-rows">
            <caption id="mapping-rows-caption">
              {direction === 'import' ? t('hub.mappings.importCaption') : t('hub.mappings.exportCaption')}
              {direction === 'import' ? (
                <span class="hint" data-key-hint>
                  {t('hub.mappings.keyHint')}
                </span>
              ) : null}
            </caption>
            <thead>
              <tr>
                <th scope="col">{t('hub.mappings.structureField')}</th>
                <th scope="col">{direction === 'import' ? t('hub.mappings.sourceColumn') : t('hub.mappings.targetColumn')}</th>
                <th scope="col">{t('hub.mappings.transforms')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => {
                const field = structure?.fields.find((item) => item.name === row.field);
                const fieldLabel = field ? pick(lang, field, 'label') : row.field;
                const control = columnControl(row.field);
                // Only the key must be mapped; the other required fields are needed by a row that creates a record.
                const isKey = direction === 'import' && row.field === structure?.key;
                const toCreate = direction === 'import' && !isKey && !!field?.required && !!structure?.creates;
                return (
                  <tr key={row.field} data-field={row.field}>
                    <th scope="row">
                      <span class="field-label">{fieldLabel}</span>
                      {isKey ? (
                        <abbr class="required" title={t('hub.required')}>
                          {' '}
                          *
                        </abbr>
                      ) : null}{' '}
                      {toCreate ? (
                        <span class="to-create" data-to-create>
                          {t('hub.mappings.toCreate')}
                        </span>
                      ) : null}{' '}
                      <code class="identifier">{row.field}</code>
                      <span class="hint" id={`desc-${row.field}`}>
                        {field ? pick(lang, field, 'description') : ''} ({field?.type})
                      </span>
                    </th>
                    <td>
                      <input
                        {...errors.control(control, `desc-${row.field}`)}
                        value={row.column}
                        dir="ltr"
                        disabled={!write}
                        list={direction === 'import' ? 'source-fields' : undefined}
                        aria-label={t(direction === 'import' ? 'hub.mappings.sourceFor' : 'hub.mappings.columnFor', { field: fieldLabel })}
                        required={isKey}
                        onInput={(event) => {
                          const value = event.currentTarget.value;
                          setRows((current) => current.map((item, at) => (at === index ? { ...item, column: value } : item)));
                        }}
                      />
                      {direction === 'import' && field?.clearable ? (
                        <label class="check clear-when-empty">
                          <input
                            type="checkbox"
                            checked={row.clearWhenEmpty}
                            disabled={!write}
                            data-clear-when-empty={row.field}
                            onChange={(event) => {
                              const checked = event.currentTarget.checked;
                              setRows((current) => current.map((item, at) => (at === index ? { ...item, clearWhenEmpty: checked } : item)));
                            }}
                          />
                          <span>
                            {t('hub.mappings.clearWhenEmpty')}
                            <span class="visually-hidden"> ({fieldLabel})</span>
                          </span>
                        </label>
                      ) : null}
                      {errors.messages(control)}
                    </td>
                    <td>
                      <TransformSteps
                        field={row.field}
                        fieldLabel={fieldLabel}
                        steps={row.transforms}
                        transforms={transformList}
                        disabled={!write}
                        onChange={(steps) =>
                          setRows((current) => current.map((item, at) => (at === index ? { ...item, transforms: steps } : item)))
                        }
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <ErrorView error={action.error} />
        {errors.rest}
        {saved ? <p role="status">{t('hub.saved')}</p> : null}
        {write ? (
          <button type="submit" data-write disabled={action.busy}>
            {mapping ? t('hub.mappings.saveVersion') : t('hub.create')}
          </button>
        ) : null}
      </form>
      {versions.data ? <Versions versions={versions.data.items} current={mapping?.version} onRestore={write ? restore : null} /> : null}
    </section>
  );
}

function Versions({
  versions,
  current,
  onRestore,
}: {
  versions: MappingVersion[];
  current?: number;
  onRestore: ((version: number) => void) | null;
}) {
  const { t, fmt } = useApp();
  const newestFirst = useMemo(() => [...versions].sort((a, b) => b.version - a.version), [versions]);
  return (
    <section aria-labelledby="versions-title" class="versions">
      <h2 id="versions-title">{t('hub.mappings.versions')}</h2>
      <DataTable
        label={t('hub.mappings.versions')}
        columns={[
          { header: t('hub.mappings.version'), numeric: true, cell: (version) => fmt.number(version.version) },
          {
            header: t('hub.field.updatedAt'),
            cell: (version) =>
              `${fmt.dateTime(version.createdAt)}${version.restoredFrom ? ` · ${t('hub.mappings.restoredFrom', { version: fmt.number(version.restoredFrom) })}` : ''}`,
          },
          { header: t('hub.mappings.fieldCount'), numeric: true, cell: (version) => fmt.number(version.fields.length) },
          {
            header: t('hub.actions'),
            cell: (version) =>
              version.version === current ? (
                t('hub.mappings.currentShort')
              ) : onRestore ? (
                <button type="button" data-write onClick={() => onRestore(version.version)}>
                  {t('hub.mappings.restore', { version: fmt.number(version.version) })}
                </button>
              ) : null,
          },
        ]}
        rows={newestFirst}
        rowKey={(version) => String(version.version)}
        rowData={(version) => ({ 'data-version': String(version.version) })}
        empty={t('hub.runs.none')}
      />
    </section>
  );
}
