import { useState } from 'preact/hooks';
import { DataTable } from '../../components/DataTable.js';
import { Field, useFieldErrors } from '../../components/fields.js';
import type { MessageKey } from '../../i18n/messages.js';
import { useApp } from '../../lib/app-context.js';
import { answer, client, get } from '../../lib/api.js';
import { useLoad, usePaged } from '../../lib/load.js';
import { navigate } from '../../lib/router.js';
import type { Connection, ConnectionKind, ConnectorKind, DropFile } from './types.js';
import { ErrorView, HubLink, StatusBadge, useAction, useBilingual } from './ui.js';

export function ConnectionsList() {
  const { t, can, canWrite } = useApp();
  const list = usePaged((page) => get('/admin/data-hub/connections', { query: page }));
  const bilingual = useBilingual();
  return (
    <section aria-labelledby="page-title" class="hub">
      <div class="page-head">
        <h1 id="page-title">{t('nav.connections')}</h1>
        {canWrite && can('data.connections.manage') ? (
          <HubLink to="/data-hub/connections/new" class="button" write>
            {t('hub.connections.new')}
          </HubLink>
        ) : null}
      </div>
      <DataTable
        label={t('nav.connections')}
        columns={[
          {
            header: t('hub.field.name'),
            cell: (connection) => <HubLink to={`/data-hub/connections/${connection.id}`}>{connection.name}</HubLink>,
          },
          { header: t('hub.field.kind'), cell: (connection) => t(`hub.kind.${connection.kind}`) },
          { header: t('hub.field.status'), cell: (connection) => <StatusBadge status={connection.status} /> },
          {
            header: t('hub.connections.lastTest'),
            cell: ({ lastTest }) => (lastTest ? (lastTest.ok ? t('hub.test.passed') : bilingual(lastTest)) : '—'),
          },
        ]}
        rows={list.data?.items}
        rowKey={(connection) => connection.id}
        rowData={(connection) => ({ 'data-connection': connection.name })}
        empty={t('hub.connections.empty')}
        error={list.error}
        paging={list}
      />
    </section>
  );
}

/** A connection: its state, Test, Activate, the pinned host key, its form, Delete. */
export function ConnectionPage({ id }: { id: string }) {
  const { t, can, canWrite, fmt } = useApp();
  const byId = { params: { path: { id } } };
  const loaded = useLoad(id === 'new' ? null : () => get('/admin/data-hub/connections/{id}', byId.params), [id]);
  const action = useAction();
  const bilingual = useBilingual();
  const manage = canWrite && can('data.connections.manage');
  if (id === 'new')
    return (
      <section aria-labelledby="page-title" class="hub">
        <p>
          <HubLink to="/data-hub/connections">{t('hub.back.connections')}</HubLink>
        </p>
        <h1 id="page-title">{t('hub.connections.new')}</h1>
        <ConnectionForm />
      </section>
    );
  const connection = loaded.data;
  if (!connection) return <ErrorView error={loaded.error} />;
  const act = (work: () => Promise<Connection | void>) =>
    action.run(async () => {
      const answer = await work();
      if (answer) loaded.set(answer);
    });
  return (
    <section aria-labelledby="page-title" class="hub">
      <p>
        <HubLink to="/data-hub/connections">{t('hub.back.connections')}</HubLink>
      </p>
      <h1 id="page-title">{connection.name}</h1>
      <dl class="facts">
        <div>
          <dt>{t('hub.field.kind')}</dt>
          <dd>{t(`hub.kind.${connection.kind}`)}</dd>
        </div>
        <div>
          <dt>{t('hub.field.status')}</dt>
          <dd>
            <StatusBadge status={connection.status} />
          </dd>
        </div>
        <div>
          <dt>{t('hub.connections.credentials')}</dt>
          <dd data-credentials>
            {connection.credentials.set
              ? t('hub.connections.credentialsSet', { fields: connection.credentials.fields.join(', ') })
              : t('hub.connections.credentialsNone')}
          </dd>
        </div>
      </dl>
      {connection.lastTest ? (
        <div
          class={connection.lastTest.ok ? 'test-outcome ok' : 'test-outcome failed'}
          role="status"
          data-test-outcome={connection.lastTest.ok ? 'passed' : 'failed'}
        >
          <strong>{connection.lastTest.ok ? t('hub.test.passed') : t('hub.test.failed')}</strong>{' '}
          <span>{t('hub.test.at', { time: fmt.dateTime(connection.lastTest.at) })}</span>
          {connection.lastTest.ok ? null : (
            <p data-test-reason={connection.lastTest.code}>
              {bilingual(connection.lastTest)} <code>{connection.lastTest.code}</code>
            </p>
          )}
        </div>
      ) : null}
      {connection.kind === 'sftp' ? (
        <div class="host-key" data-host-key>
          <h2>{t('hub.hostKey.title')}</h2>
          {connection.hostKey ? (
            <>
              <p>{t('hub.hostKey.confirm')}</p>
              <p dir="ltr">
                <code data-fingerprint>
                  {connection.hostKey.algorithm} {connection.hostKey.fingerprint}
                </code>
              </p>
              <p>{t('hub.hostKey.pinnedAt', { time: fmt.dateTime(connection.hostKey.pinnedAt) })}</p>
              {manage ? (
                <button
                  type="button"
                  data-write
                  disabled={action.busy}
                  onClick={() => act(() => answer(client.PUT('/admin/data-hub/connections/{id}', { ...byId, body: { hostKey: null } })))}
                >
                  {t('hub.hostKey.clear')}
                </button>
              ) : null}
            </>
          ) : (
            <p>{t('hub.hostKey.none')}</p>
          )}
        </div>
      ) : null}
      {manage ? (
        <div class="actions">
          <button
            type="button"
            data-write
            disabled={action.busy}
            onClick={() => act(() => answer(client.POST('/admin/data-hub/connections/{id}/test', byId)))}
          >
            {action.busy ? t('hub.working') : t('hub.connections.test')}
          </button>
          <button
            type="button"
            data-write
            disabled={action.busy || connection.status !== 'tested'}
            aria-describedby="activate-hint"
            onClick={() => act(() => answer(client.POST('/admin/data-hub/connections/{id}/activate', byId)))}
          >
            {t('hub.connections.activate')}
          </button>
          <span id="activate-hint" class="hint">
            {connection.status === 'active' ? t('hub.connections.isActive') : t('hub.connections.activateHint')}
          </span>
        </div>
      ) : null}
      <ErrorView error={action.error} />
      {connection.kind === 'platform_drop' && can('data.flows.manage') ? <DropFiles connectionId={connection.id} /> : null}
      {manage ? (
        <>
          <ConnectionForm connection={connection} onSaved={(saved) => loaded.set(saved)} key={connection.id} />
          <div class="danger">
            <button
              type="button"
              class="delete"
              data-write
              disabled={action.busy}
              onClick={() =>
                window.confirm(t('hub.confirmDelete', { name: connection.name })) &&
                action.run(async () => {
                  await answer(client.DELETE('/admin/data-hub/connections/{id}', byId));
                  navigate('/data-hub/connections');
                })
              }
            >
              {t('hub.connections.delete')}
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}

/** A platform drop's files, and the upload of a file into it. */
function DropFiles({ connectionId }: { connectionId: string }) {
  const { t, fmt, canWrite } = useApp();
  const files = useLoad(() => get('/admin/data-hub/connections/{id}/files', { path: { id: connectionId } }), [connectionId]);
  const action = useAction();
  const errors = useFieldErrors(action.error, (field) => (field === 'name' ? field : undefined));
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [uploaded, setUploaded] = useState<DropFile | null>(null);
  const upload = (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setUploaded(null);
    void action.run(async () => {
      setUploaded(
        await answer(
          client.PUT('/admin/data-hub/connections/{id}/files/{name}', {
            params: { path: { id: connectionId, name } },
            body: file,
            // The file's bytes as they are, as the route takes them.
            bodySerializer: (bytes) => bytes,
            headers: { 'Content-Type': 'application/octet-stream' },
          }),
        ),
      );
      errors.formRef.current?.reset();
      setFile(null);
      setName('');
      files.reload();
    });
  };
  return (
    <section aria-labelledby="drop-files-title" class="drop-files">
      <h2 id="drop-files-title">{t('hub.files.title')}</h2>
      <p class="hint">{t('hub.files.about')}</p>
      {canWrite ? (
        <form class="hub-form inline" ref={errors.formRef} onSubmit={upload} aria-label={t('hub.files.upload')}>
          <label>
            <span>{t('hub.files.choose')}</span>
            <input
              type="file"
              required
              onChange={(event) => {
                const chosen = event.currentTarget.files?.[0] ?? null;
                setFile(chosen);
                setName(chosen ? dropName(chosen.name) : '');
              }}
            />
          </label>
          <Field label={t('hub.files.name')} name="name" errors={errors} hint={t('hub.files.nameHint')}>
            {(control) => (
              <input {...control} required maxLength={200} dir="ltr" value={name} onInput={(event) => setName(event.currentTarget.value)} />
            )}
          </Field>
          <button type="submit" data-write disabled={action.busy}>
            {action.busy ? t('hub.working') : t('hub.files.upload')}
          </button>
          <ErrorView error={action.error} />
          {errors.rest}
          {uploaded ? (
            <p role="status" data-uploaded={uploaded.name}>
              {t('hub.files.uploaded', { name: uploaded.name, size: fmt.bytes(uploaded.bytes) })}
            </p>
          ) : null}
        </form>
      ) : null}
      <DataTable
        label={t('hub.files.title')}
        columns={[
          {
            header: t('hub.files.name'),
            cell: (dropFile) => (
              <code dir="ltr">
                <a href={`/admin/data-hub/connections/${connectionId}/files/${encodeURIComponent(dropFile.name)}`} download={dropFile.name}>
                  {dropFile.name}
                </a>
              </code>
            ),
          },
          { header: t('hub.files.size'), numeric: true, cell: (dropFile) => fmt.bytes(dropFile.bytes) },
          { header: t('hub.files.modified'), cell: (dropFile) => fmt.dateTime(dropFile.modifiedAt) },
        ]}
        rows={files.data?.items}
        rowKey={(dropFile) => dropFile.name}
        rowData={(dropFile) => ({ 'data-file': dropFile.name })}
        empty={t('hub.files.empty')}
        error={files.error}
      />
    </section>
  );
}

/** A name the drop accepts (letters, digits, dots, hyphens, underscores; no `..`), from the chosen file's. */
function dropName(fileName: string): string {
  return fileName
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .slice(-200);
}

/** The connection form, once the kinds of connection and what each takes (`GET /connectors`) are known. */
function ConnectionForm(props: { connection?: Connection; onSaved?: (saved: Connection) => void }) {
  const kinds = useLoad(() => get('/admin/data-hub/connectors'));
  return kinds.data ? <KindForm kinds={kinds.data.items} {...props} /> : <ErrorView error={kinds.error} />;
}

function KindForm({
  kinds,
  connection,
  onSaved,
}: {
  kinds: ConnectorKind[];
  connection?: Connection;
  onSaved?: (saved: Connection) => void;
}) {
  const { t, entitled } = useApp();
  const [kind, setKind] = useState<ConnectionKind>(connection?.kind ?? kinds[0].kind);
  const [sftpAuth, setSftpAuth] = useState<'password' | 'privateKey'>(
    connection?.credentials.fields.includes('privateKey') ? 'privateKey' : 'password',
  );
  const action = useAction();
  const [saved, setSaved] = useState(false);
  const chosen = kinds.find((option) => option.kind === kind)!;
  const needsPlan = chosen.entitlement !== null && !entitled(chosen.entitlement) ? chosen.plan : null;
  // The credentials asked for: an SFTP server takes a password or a private key (with its passphrase).
  const secrets = chosen.credentials.filter(
    (field) => kind !== 'sftp' || (sftpAuth === 'password' ? field.name === 'password' : field.name !== 'password'),
  );
  const controls = [
    'name',
    ...chosen.config.map((field) => `config.${field.name}`),
    ...secrets.map((field) => `credentials.${field.name}`),
  ];
  const errors = useFieldErrors(action.error, (field) => (controls.includes(field) ? field : undefined));
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const config: Record<string, unknown> = {};
    for (const field of chosen.config) {
      if (field.input === 'checkbox') config[field.name] = form.get(`config.${field.name}`) === 'on';
      else {
        const value = String(form.get(`config.${field.name}`) ?? '').trim();
        if (field.input === 'number') {
          if (value) config[field.name] = Number(value);
        } else if (value || field.name === 'prefix') config[field.name] = value;
      }
    }
    const credentials: Record<string, string> = {};
    for (const field of secrets) {
      const value = String(form.get(`credentials.${field.name}`) ?? '');
      if (value) credentials[field.name] = value;
    }
    const body = {
      name: String(form.get('name') ?? '').trim(),
      config,
      ...(Object.keys(credentials).length ? { credentials } : {}),
    };
    setSaved(false);
    void action.run(async () => {
      if (connection) {
        const changed = await answer(client.PUT('/admin/data-hub/connections/{id}', { params: { path: { id: connection.id } }, body }));
        setSaved(true);
        onSaved?.(changed);
      } else {
        const created = await answer(client.POST('/admin/data-hub/connections', { body: { ...body, kind } }));
        navigate(`/data-hub/connections/${created.id}`);
      }
    });
  };
  const value = (name: string) => (connection?.config[name] === undefined ? '' : String(connection.config[name]));
  return (
    <form class="hub-form" ref={errors.formRef} onSubmit={submit} aria-labelledby={connection ? 'connection-form-title' : 'page-title'}>
      {connection ? <h2 id="connection-form-title">{t('hub.connections.edit')}</h2> : null}
      <Field label={t('hub.field.name')} name="name" errors={errors}>
        {(control) => <input {...control} required maxLength={120} defaultValue={connection?.name ?? ''} />}
      </Field>
      {connection ? null : (
        <label>
          <span>{t('hub.field.kind')}</span>
          <select name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as ConnectionKind)}>
            {kinds.map((option) => (
              <option value={option.kind} key={option.kind}>
                {t(`hub.kind.${option.kind}`)}
                {option.entitlement !== null && option.plan !== null && !entitled(option.entitlement)
                  ? ` (${t('nav.needsPlan', { plan: t(`plan.${option.plan}`) })})`
                  : ''}
              </option>
            ))}
          </select>
        </label>
      )}
      {needsPlan ? (
        <div class="problem" role="alert" data-code="plan_not_entitled">
          <p>{t('hub.connections.databaseNeedsPlan')}</p>
          <p class="upgrade" data-upgrade={needsPlan}>
            <strong>{t('error.upgrade', { plan: t(`plan.${needsPlan}`) })}</strong>
          </p>
        </div>
      ) : (
        <>
          <fieldset>
            <legend>{t('hub.connections.config')}</legend>
            {chosen.config.map((field) => (
              <Field
                key={`${kind}.${field.name}`}
                label={t(`hub.config.${field.name}` as MessageKey)}
                name={`config.${field.name}`}
                errors={errors}
                check={field.input === 'checkbox'}
              >
                {(control) =>
                  field.input === 'textarea' ? (
                    <textarea {...control} required={field.required} dir="ltr" rows={4} defaultValue={value(field.name)} />
                  ) : field.input === 'checkbox' ? (
                    <input {...control} type="checkbox" defaultChecked={connection?.config[field.name] === true} />
                  ) : field.input === 'number' ? (
                    <input
                      {...control}
                      type="number"
                      required={field.required}
                      dir="ltr"
                      defaultValue={value(field.name)}
                      min={1}
                      max={65535}
                    />
                  ) : (
                    <input {...control} required={field.required} dir="ltr" defaultValue={value(field.name)} />
                  )
                }
              </Field>
            ))}
          </fieldset>
          {secrets.length ? (
            <fieldset>
              <legend>{t('hub.connections.credentials')}</legend>
              <p class="hint">{connection?.credentials.set ? t('hub.connections.keepSecrets') : t('hub.connections.writeOnly')}</p>
              {kind === 'sftp' ? (
                <label>
                  <span>{t('hub.connections.sftpAuth')}</span>
                  <select value={sftpAuth} onChange={(event) => setSftpAuth(event.currentTarget.value as 'password' | 'privateKey')}>
                    <option value="password">{t('hub.config.password')}</option>
                    <option value="privateKey">{t('hub.config.privateKey')}</option>
                  </select>
                </label>
              ) : null}
              {secrets.map((field) => (
                <Field
                  key={`${kind}.${field.name}`}
                  label={t(`hub.config.${field.name}` as MessageKey)}
                  name={`credentials.${field.name}`}
                  errors={errors}
                >
                  {(control) =>
                    field.input === 'textarea' ? (
                      <textarea {...control} dir="ltr" rows={4} autoComplete="off" spellcheck={false} />
                    ) : (
                      <input {...control} type="password" dir="ltr" autoComplete="new-password" />
                    )
                  }
                </Field>
              ))}
            </fieldset>
          ) : null}
          <ErrorView error={action.error} />
          {errors.rest}
          {saved ? <p role="status">{t('hub.saved')}</p> : null}
          <button type="submit" data-write disabled={action.busy}>
            {connection ? t('hub.save') : t('hub.create')}
          </button>
        </>
      )}
    </form>
  );
}
