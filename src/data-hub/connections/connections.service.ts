import { EntityManager } from '@mikro-orm/postgresql';
import { Inject, Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { AdminPrincipal } from '../../auth/principal.js';
import { requireEntitlement } from '../../auth/access/plan-refusal.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import { validatedAs } from '../../common/errors/validation.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { NOT_ALLOWED_FIELD } from '../../common/validation/text.js';
import type { SecretBox } from '../../infra/crypto/secrets.js';
import { newestFirst, pageOf } from '../../infra/database/newest-first.js';
import { ConnectionFailure } from '../connectors/connection-failure.js';
import {
  CONNECTION_TEST_TIMEOUT_MS,
  withinDeadline,
  type ConnectionTarget,
  type Connector,
  type FieldsSource,
  type SourceField,
} from '../connectors/connector.js';
import { ConnectorRegistry } from '../connectors/connector-registry.js';
import { formatOfName } from '../connectors/file-template.js';
import { privateKeyOpens } from '../connectors/sftp.js';
import type { ConnectionFieldsQueryDto, CreateConnectionDto, UpdateConnectionDto } from '../dto/connection.dto.js';
import { refuseChanges } from '../dto/read-back.js';
import type { ConnectionKind, ConnectionStatus, ConnectionTestOutcome, PinnedHostKey } from '../entities/connection.entity.js';

/** The SecretBox that seals connection credentials: its own key, derived from SECRET_KEY. */
export const CONNECTION_SECRETS = Symbol('ConnectionSecrets');

const DOC = sql`json_build_object(
  'id', c.id, 'name', c.name, 'kind', c.kind, 'config', c.config,
  'credentials', json_build_object('set', c.credentials_sealed is not null, 'fields', c.credential_fields),
  'status', c.status, 'lastTest', c.last_test, 'hostKey', c.host_key,
  'createdAt', iso_utc(c.created_at), 'updatedAt', iso_utc(c.updated_at))`;

export interface ConnectionDocument {
  id: string;
  name: string;
  kind: ConnectionKind;
  config: Record<string, unknown>;
  credentials: { set: boolean; fields: string[] };
  status: ConnectionStatus;
  lastTest: ConnectionTestOutcome | null;
  hostKey: PinnedHostKey | null;
  createdAt: string;
  updatedAt: string;
}

interface StoredConnection {
  id: string;
  store_id: string;
  name: string;
  kind: ConnectionKind;
  config: Record<string, unknown>;
  credentials_sealed: string | null;
  status: ConnectionStatus;
  revision: number;
  host_key: PinnedHostKey | null;
}

/** The default port of each kind that has one, filled in when the config leaves it out. */
const DEFAULT_PORTS: Partial<Record<ConnectionKind, number>> = { sftp: 22, database_read: 5432 };

/**
 * Data hub connections (contract section 9). Config and credentials are checked against the shapes of
 * their kind; credentials are sealed bound to the connection and never leave this service again.
 * States: created `untested`; a test records `tested` or `failed` for the revision it tested; only a
 * tested connection is activated; a change of config, credentials or host key pin makes it `untested`.
 */
@Injectable()
export class ConnectionsService {
  constructor(
    private readonly em: EntityManager,
    private readonly connectors: ConnectorRegistry,
    @Inject(CONNECTION_SECRETS) private readonly secrets: SecretBox,
  ) {}

  async list(admin: AdminPrincipal, query: ListQueryDto): Promise<{ items: ConnectionDocument[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = newestFirst('c', query.cursor);
    const { rows } = await sql<{ doc: ConnectionDocument; id: string; sort_at: string }>`
      select ${DOC} as doc, c.id, ${order.sortAt} as sort_at
      from data_hub_connections c
      where c.store_id = ${admin.storeId} and ${order.where}
      ${order.order}
      limit ${limit + 1}`.execute(this.db());
    const page = pageOf(rows, limit);
    return { items: page.rows.map((row) => row.doc), nextCursor: page.nextCursor };
  }

  /** Every connection of a store, for the operator's command line. */
  async all(storeId: string): Promise<ConnectionDocument[]> {
    const { rows } = await sql<{ doc: ConnectionDocument }>`
      select ${DOC} as doc from data_hub_connections c where c.store_id = ${storeId} order by c.created_at, c.id`.execute(this.db());
    return rows.map((row) => row.doc);
  }

  async get(admin: AdminPrincipal, id: string): Promise<ConnectionDocument> {
    await this.stored(admin, id);
    return this.document(id);
  }

  async create(admin: AdminPrincipal, body: CreateConnectionDto): Promise<ConnectionDocument> {
    const connector = this.connectors.of(body.kind);
    if (connector.entitlement) requireEntitlement(admin, connector.entitlement);
    const config = this.config(connector, body.config);
    const credentials = this.credentials(connector, body.credentials, true);
    const id = randomUUID();
    await sql`
      insert into data_hub_connections (id, store_id, name, kind, config, credentials_sealed, credential_fields, created_by)
      values (${id}, ${admin.storeId}, ${body.name}, ${body.kind}, ${JSON.stringify(config)}::jsonb,
              ${credentials ? this.seal(admin.storeId, id, credentials) : null}, ${credentials ? Object.keys(credentials) : []}::text[],
              ${admin.staff!.id})`.execute(this.db());
    return this.document(id);
  }

  async update(admin: AdminPrincipal, id: string, body: UpdateConnectionDto): Promise<ConnectionDocument> {
    await this.em.fork().transactional(async (em) => {
      const stored = await this.stored(admin, id, em);
      const connector = this.connectors.of(stored.kind);
      refuseChanges([
        {
          field: 'kind',
          sent: body.kind,
          current: stored.kind,
          message: {
            en: `A connection’s kind cannot change (this one is ${stored.kind}): create a new ${body.kind} connection.`,
            ar: `لا يتغير نوع الاتصال (هذا الاتصال ${stored.kind}): أنشئ اتصال ${body.kind} جديدًا.`,
          },
        },
        {
          field: 'hostKey',
          // null is no pin sent back: it clears the pin, below.
          sent: body.hostKey ?? undefined,
          current: stored.host_key,
          message: {
            en: 'Only a passed test pins a host key: send the pinned one back as it is, or null to clear the pin (the next test pins the key the server presents).',
            ar: 'لا يُثبَّت مفتاح المضيف إلا باختبار ناجح: أرسل المفتاح المثبّت كما هو، أو null لإلغاء التثبيت (يثبّت الاختبار التالي المفتاح الذي يقدمه الخادم).',
          },
        },
      ]);
      const config = body.config === undefined ? undefined : this.config(connector, body.config);
      const credentials = this.credentials(connector, body.credentials, false);
      const configChanged = config !== undefined && canonical(config) !== canonical(stored.config);
      const credentialsChanged = credentials !== undefined && canonical(credentials) !== canonical(this.open(stored));
      const pinCleared = body.hostKey === null && stored.host_key !== null;
      const changed = configChanged || credentialsChanged || pinCleared;
      await sql`
        update data_hub_connections set
          name = coalesce(${body.name ?? null}, name),
          config = ${configChanged ? sql`${JSON.stringify(config)}::jsonb` : sql`config`},
          credentials_sealed = ${credentialsChanged ? this.seal(admin.storeId, id, credentials!) : sql`credentials_sealed`},
          credential_fields = ${credentialsChanged ? sql`${Object.keys(credentials!)}::text[]` : sql`credential_fields`},
          host_key = ${pinCleared ? null : sql`host_key`},
          status = ${changed ? 'untested' : sql`status`},
          revision = revision + ${changed ? 1 : 0},
          updated_at = now()
        where id = ${id}`.execute(this.db(em));
    });
    return this.document(id);
  }

  async remove(admin: AdminPrincipal, id: string): Promise<void> {
    await this.stored(admin, id);
    try {
      await sql`delete from data_hub_connections where id = ${id} and store_id = ${admin.storeId}`.execute(this.db());
    } catch (error) {
      // Flows and delivery schedules reference their connection; the database keeps them consistent.
      if ((error as { code?: string }).code === '23503') throw new ApiError('connection_in_use');
      throw error;
    }
  }

  /**
   * Connects for real (within 10 s) and records the outcome for the revision tested: a change made
   * while the test ran is not marked tested by it. A passed SFTP test pins the host key if none is.
   */
  async test(admin: AdminPrincipal, id: string): Promise<ConnectionDocument> {
    const stored = await this.stored(admin, id);
    const connector = this.usable(admin, stored);
    const at = new Date().toISOString();
    let outcome: ConnectionTestOutcome;
    let pin: PinnedHostKey | null = null;
    try {
      const result = await withinDeadline(CONNECTION_TEST_TIMEOUT_MS, (signal) => connector.test(this.target(stored), signal));
      outcome = { at, ok: true };
      if (result.hostKey) pin = { ...result.hostKey, pinnedAt: at };
    } catch (error) {
      if (!(error instanceof ConnectionFailure)) throw error;
      outcome = { at, ok: false, ...error.describe() };
    }
    await sql`
      update data_hub_connections set
        last_test = ${JSON.stringify(outcome)}::jsonb,
        status = case when ${outcome.ok} then (case when status = 'active' then 'active' else 'tested' end) else 'failed' end,
        host_key = coalesce(host_key, ${pin ? JSON.stringify(pin) : null}::jsonb)
      where id = ${id} and revision = ${stored.revision}`.execute(this.db());
    return this.document(id);
  }

  async activate(admin: AdminPrincipal, id: string): Promise<ConnectionDocument> {
    const stored = await this.stored(admin, id);
    this.usable(admin, stored);
    const { rows } = await sql`
      update data_hub_connections set status = 'active', updated_at = now()
      where id = ${id} and status in ('tested', 'active') returning id`.execute(this.db());
    if (rows.length === 0) throw new ApiError('connection_not_tested');
    return this.document(id);
  }

  /** The field names at the source: the newest file matching the template, or the query's columns. */
  async fields(
    admin: AdminPrincipal,
    id: string,
    query: ConnectionFieldsQueryDto,
  ): Promise<{ source: FieldsSource; fields: SourceField[] }> {
    const stored = await this.stored(admin, id);
    const connector = this.usable(admin, stored);
    let request = {};
    if (stored.kind !== 'database_read') {
      if (!query.template)
        throw invalidField('template', 'isDefined', {
          en: 'A file connection needs the file name template to look for.',
          ar: 'يحتاج اتصال الملفات إلى قالب اسم الملف للبحث عنه.',
        });
      const format = query.format ?? formatOfName(query.template);
      if (!format)
        throw invalidField('format', 'isDefined', {
          en: 'Give the format: the template’s extension does not name one.',
          ar: 'حدّد الصيغة: امتداد القالب لا يدل على صيغة.',
        });
      request = { template: query.template, format };
    }
    try {
      return await withinDeadline(CONNECTION_TEST_TIMEOUT_MS, (signal) => connector.fields(this.target(stored), request, signal));
    } catch (error) {
      if (error instanceof ConnectionFailure) throw new ApiError('source_unavailable', { details: { reason: error.describe() } });
      throw error;
    }
  }

  /**
   * A connection of the caller's store, its credentials still sealed; 404 for any other id. Inside a
   * transaction (`em`), the row is locked until it ends.
   */
  async stored(admin: AdminPrincipal, id: string, em?: EntityManager): Promise<StoredConnection> {
    return this.storedIn(admin.storeId, id, em);
  }

  /** `stored` for work done on a store's behalf without a caller (a queued run). */
  async storedIn(storeId: string, id: string, em?: EntityManager): Promise<StoredConnection> {
    if (!UUID_PATTERN.test(id)) throw new ApiError('NOT_FOUND');
    const { rows } = await sql<StoredConnection>`
      select id, store_id, name, kind, config, credentials_sealed, status, revision, host_key
      from data_hub_connections where id = ${id} and store_id = ${storeId} ${em ? sql`for update` : sql``}`.execute(this.db(em));
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    return rows[0];
  }

  /** What a connector needs to reach the connection: its config and its credentials, opened. */
  target(stored: StoredConnection): ConnectionTarget {
    return { id: stored.id, storeId: stored.store_id, config: stored.config, credentials: this.open(stored), hostKey: stored.host_key };
  }

  /** The connector of a connection whose kind the store's plan still allows (a downgrade keeps the record, not the use). */
  private usable(admin: AdminPrincipal, stored: StoredConnection): Connector {
    const connector = this.connectors.of(stored.kind);
    if (connector.entitlement) requireEntitlement(admin, connector.entitlement);
    return connector;
  }

  private config(connector: Connector, value: unknown): Record<string, unknown> {
    const config = { ...validatedAs(connector.configType, value, 'config') } as Record<string, unknown>;
    const port = DEFAULT_PORTS[connector.kind];
    if (port !== undefined) config.port ??= port;
    return config;
  }

  /** Checked credentials of the connector's shape; `required` at creation for kinds that have them. */
  private credentials(connector: Connector, value: unknown, required: boolean): Record<string, string> | undefined {
    if (!connector.credentialsType) {
      if (value !== undefined) throw invalidField('credentials', 'whitelistValidation', NOT_ALLOWED_FIELD);
      return undefined;
    }
    if (value === undefined) {
      if (required)
        throw invalidField('credentials', 'isDefined', {
          en: 'This kind of connection needs credentials.',
          ar: 'يحتاج هذا النوع من الاتصال إلى بيانات اعتماد.',
        });
      return undefined;
    }
    const credentials = { ...validatedAs(connector.credentialsType, value, 'credentials') } as Record<string, string>;
    if (credentials.privateKey !== undefined && !privateKeyOpens(credentials.privateKey, credentials.passphrase)) {
      throw invalidField('credentials.privateKey', 'privateKey', {
        en: 'Not a private key this service can read (OpenSSH or PEM), or the passphrase does not open it.',
        ar: 'ليس مفتاحًا خاصًا تستطيع الخدمة قراءته (OpenSSH أو PEM)، أو أن عبارة المرور لا تفتحه.',
      });
    }
    return credentials;
  }

  private seal(storeId: string, id: string, credentials: Record<string, string>): string {
    return this.secrets.seal(JSON.stringify(credentials), sealContext(storeId, id));
  }

  private open(stored: StoredConnection): Record<string, string> | null {
    return stored.credentials_sealed
      ? JSON.parse(this.secrets.open(stored.credentials_sealed, sealContext(stored.store_id, stored.id)))
      : null;
  }

  private async document(id: string): Promise<ConnectionDocument> {
    const { rows } = await sql<{ doc: ConnectionDocument }>`select ${DOC} as doc from data_hub_connections c where c.id = ${id}`.execute(
      this.db(),
    );
    return rows[0].doc;
  }

  private db(em: EntityManager = this.em): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }
}

/** Sealed credentials open only on the connection they were sealed for. */
function sealContext(storeId: string, id: string): string {
  return `data-hub-connection:${storeId}:${id}`;
}

/** JSON with sorted keys, to tell a real change from the same value sent again. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}
