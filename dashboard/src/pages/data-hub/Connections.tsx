import { useState } from 'preact/hooks';
import type { MessageKey } from '../../i18n/messages.js';
import { useApp } from '../../lib/app-context.js';
import { navigate } from '../../lib/router.js';
import { CONNECTION_KINDS, type Connection, type ConnectionKind } from './types.js';
import {
  ErrorView,
  HUB,
  HubLink,
  hubDelete,
  hubPost,
  hubPut,
  Pager,
  StatusBadge,
  useAction,
  useBilingual,
  useLoad,
  usePaged,
} from './ui.js';

/** The config and credential fields of each kind (contract section 9), in the order the form shows them. */
const CONFIG: Record<ConnectionKind, { name: string; type?: 'number' | 'checkbox' | 'textarea'; required?: boolean }[]> = {
  sftp: [
    { name: 'host', required: true },
    { name: 'port', type: 'number' },
    { name: 'username', required: true },
    { name: 'basePath', required: true },
  ],
  object_storage: [
    { name: 'endpoint' },
    { name: 'region', required: true },
    { name: 'bucket', required: true },
    { name: 'prefix' },
    { name: 'forcePathStyle', type: 'checkbox' },
  ],
  database_read: [
    { name: 'host', required: true },
    { name: 'port', type: 'number' },
    { name: 'database', required: true },
    { name: 'username', required: true },
    { name: 'query', type: 'textarea', required: true },
  ],
  platform_drop: [{ name: 'prefix' }],
};
const SECRETS: Record<ConnectionKind, { name: string; type?: 'textarea' }[]> = {
  sftp: [{ name: 'password' }, { name: 'privateKey', type: 'textarea' }, { name: 'passphrase' }],
  object_storage: [{ name: 'accessKeyId' }, { name: 'secretAccessKey' }],
  database_read: [{ name: 'password' }],
  platform_drop: [],
};

export function ConnectionsList() {
  const { t, can, canWrite } = useApp();
  const list = usePaged<Connection>(`${HUB}/connections`);
  const bilingual = useBilingual();
  return (
    <section aria-labelledby="page-title" class="hub">
      <div class="page-head">
        <h1 id="page-title">{t('nav.connections')}</h1>
        {canWrite && can('data.connections.manage') ? (
          <HubLink to="/data-hub/connections/new" class="button">
            {t('hub.connections.new')}
          </HubLink>
        ) : null}
      </div>
      <ErrorView error={list.error} />
      {list.data ? (
        list.data.items.length === 0 ? (
          <p>{t('hub.connections.empty')}</p>
        ) : (
          <table class="hub-table">
            <caption class="visually-hidden">{t('nav.connections')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('hub.field.name')}</th>
                <th scope="col">{t('hub.field.kind')}</th>
                <th scope="col">{t('hub.field.status')}</th>
                <th scope="col">{t('hub.connections.lastTest')}</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((connection) => (
                <tr key={connection.id} data-connection={connection.name}>
                  <td>
                    <HubLink to={`/data-hub/connections/${connection.id}`}>{connection.name}</HubLink>
                  </td>
                  <td>{t(`hub.kind.${connection.kind}`)}</td>
                  <td>
                    <StatusBadge status={connection.status} />
                  </td>
                  <td>{connection.lastTest ? (connection.lastTest.ok ? t('hub.test.passed') : bilingual(connection.lastTest)) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      <Pager {...list} />
    </section>
  );
}

/** A connection: its state, Test, Activate, the pinned host key, its form, Delete. */
export function ConnectionPage({ id }: { id: string }) {
  const { t, can, canWrite, fmt } = useApp();
  const loaded = useLoad<Connection>(id === 'new' ? null : `${HUB}/connections/${id}`);
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
                  disabled={action.busy}
                  onClick={() => act(() => hubPut<Connection>(`/connections/${id}`, { hostKey: null }))}
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
          <button type="button" disabled={action.busy} onClick={() => act(() => hubPost<Connection>(`/connections/${id}/test`))}>
            {action.busy ? t('hub.working') : t('hub.connections.test')}
          </button>
          <button
            type="button"
            disabled={action.busy || connection.status !== 'tested'}
            aria-describedby="activate-hint"
            onClick={() => act(() => hubPost<Connection>(`/connections/${id}/activate`))}
          >
            {t('hub.connections.activate')}
          </button>
          <span id="activate-hint" class="hint">
            {connection.status === 'active' ? t('hub.connections.isActive') : t('hub.connections.activateHint')}
          </span>
        </div>
      ) : null}
      <ErrorView error={action.error} />
      {manage ? (
        <>
          <ConnectionForm connection={connection} onSaved={(saved) => loaded.set(saved)} key={connection.id} />
          <div class="danger">
            <button
              type="button"
              class="delete"
              disabled={action.busy}
              onClick={() =>
                window.confirm(t('hub.confirmDelete', { name: connection.name })) &&
                action.run(async () => {
                  await hubDelete(`/connections/${id}`);
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

function ConnectionForm({ connection, onSaved }: { connection?: Connection; onSaved?: (saved: Connection) => void }) {
  const { t, entitled } = useApp();
  const [kind, setKind] = useState<ConnectionKind>(connection?.kind ?? 'platform_drop');
  const [sftpAuth, setSftpAuth] = useState<'password' | 'privateKey'>(
    connection?.credentials.fields.includes('privateKey') ? 'privateKey' : 'password',
  );
  const action = useAction();
  const [saved, setSaved] = useState(false);
  const needsPlan = kind === 'database_read' && !entitled('feature:database_read');
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const config: Record<string, unknown> = {};
    for (const field of CONFIG[kind]) {
      if (field.type === 'checkbox') config[field.name] = form.get(`config.${field.name}`) === 'on';
      else {
        const value = String(form.get(`config.${field.name}`) ?? '').trim();
        if (field.type === 'number') {
          if (value) config[field.name] = Number(value);
        } else if (value || field.name === 'prefix') config[field.name] = value;
      }
    }
    const credentials: Record<string, string> = {};
    for (const field of SECRETS[kind]) {
      if (kind === 'sftp' && sftpAuth === 'password' && field.name !== 'password') continue;
      if (kind === 'sftp' && sftpAuth === 'privateKey' && field.name === 'password') continue;
      const value = String(form.get(`secret.${field.name}`) ?? '');
      if (value) credentials[field.name] = value;
    }
    const body: Record<string, unknown> = { name: String(form.get('name') ?? '').trim(), config };
    if (Object.keys(credentials).length) body.credentials = credentials;
    setSaved(false);
    void action.run(async () => {
      if (connection) {
        const answer = await hubPut<Connection>(`/connections/${connection.id}`, body);
        setSaved(true);
        onSaved?.(answer);
      } else {
        const answer = await hubPost<Connection>('/connections', { ...body, kind });
        navigate(`/data-hub/connections/${answer.id}`);
      }
    });
  };
  const value = (name: string) => (connection?.config[name] === undefined ? undefined : String(connection.config[name]));
  return (
    <form class="hub-form" onSubmit={submit} aria-labelledby={connection ? 'connection-form-title' : 'page-title'}>
      {connection ? <h2 id="connection-form-title">{t('hub.connections.edit')}</h2> : null}
      <label>
        <span>{t('hub.field.name')}</span>
        <input name="name" required maxLength={120} defaultValue={connection?.name ?? ''} />
      </label>
      {connection ? null : (
        <label>
          <span>{t('hub.field.kind')}</span>
          <select name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as ConnectionKind)}>
            {CONNECTION_KINDS.map((option) => (
              <option value={option} key={option}>
                {t(`hub.kind.${option}`)}
                {option === 'database_read' && !entitled('feature:database_read')
                  ? ` (${t('nav.needsPlan', { plan: t('plan.pro') })})`
                  : ''}
              </option>
            ))}
          </select>
        </label>
      )}
      {needsPlan ? (
        <div class="problem" role="alert" data-code="plan_not_entitled">
          <p>{t('hub.connections.databaseNeedsPlan')}</p>
          <p class="upgrade" data-upgrade="pro">
            <strong>{t('error.upgrade', { plan: t('plan.pro') })}</strong>
          </p>
        </div>
      ) : (
        <>
          <fieldset>
            <legend>{t('hub.connections.config')}</legend>
            {CONFIG[kind].map((field) => (
              <label key={`${kind}.${field.name}`} class={field.type === 'checkbox' ? 'check' : undefined}>
                <span>{t(`hub.config.${field.name}` as MessageKey)}</span>
                {field.type === 'textarea' ? (
                  <textarea
                    name={`config.${field.name}`}
                    required={field.required}
                    dir="ltr"
                    rows={4}
                    defaultValue={value(field.name) ?? ''}
                  />
                ) : field.type === 'checkbox' ? (
                  <input type="checkbox" name={`config.${field.name}`} defaultChecked={connection?.config[field.name] === true} />
                ) : (
                  <input
                    name={`config.${field.name}`}
                    type={field.type ?? 'text'}
                    list={undefined}
                    required={field.required}
                    dir="ltr"
                    defaultValue={value(field.name) ?? ''}
                    min={field.type === 'number' ? 1 : undefined}
                    max={field.type === 'number' ? 65535 : undefined}
                  />
                )}
              </label>
            ))}
          </fieldset>
          {SECRETS[kind].length ? (
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
              {SECRETS[kind]
                .filter((field) => kind !== 'sftp' || (sftpAuth === 'password' ? field.name === 'password' : field.name !== 'password'))
                .map((field) => (
                  <label key={`${kind}.${field.name}`}>
                    <span>{t(`hub.config.${field.name}` as MessageKey)}</span>
                    {field.type === 'textarea' ? (
                      <textarea name={`secret.${field.name}`} dir="ltr" rows={4} autoComplete="off" spellcheck={false} />
                    ) : (
                      <input name={`secret.${field.name}`} type="password" dir="ltr" autoComplete="new-password" />
                    )}
                  </label>
                ))}
            </fieldset>
          ) : null}
          <ErrorView error={action.error} />
          {saved ? <p role="status">{t('hub.saved')}</p> : null}
          <button type="submit" disabled={action.busy}>
            {connection ? t('hub.save') : t('hub.create')}
          </button>
        </>
      )}
    </form>
  );
}
