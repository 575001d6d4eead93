import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError, invalidField } from '../../common/errors/api-error.js';
import type { FormulaSafety } from '../../common/formula-safety.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { newestFirst, pageOf } from '../../infra/database/newest-first.js';
import type { CreateFlowDto, UpdateFlowDto } from '../dto/flow.dto.js';
import { refuseChanges } from '../dto/read-back.js';
import type { ConnectionKind } from '../entities/connection.entity.js';
import type { FlowMode } from '../entities/flow.entity.js';
import { STRUCTURES, structureNamed, type Direction } from '../structures/structures.js';
import { nextDueAt } from './flow-schedule.js';
import type { FileEncoding, SourceFormat } from '../../infra/tabular/formats.js';

const DOC = sql`json_build_object(
  'id', f.id, 'name', f.name, 'connectionId', f.connection_id, 'mappingId', f.mapping_id, 'direction', f.direction,
  'format', f.format, 'encoding', f.encoding, 'fileTemplate', f.file_template, 'mode', f.mode, 'formulaSafety', f.formula_safety,
  'schedule', case when f.schedule_cron is null then null else json_build_object('cron', f.schedule_cron, 'timezone', f.schedule_timezone) end,
  'paused', f.paused, 'muted', f.muted, 'missingAfterMinutes', f.missing_after_minutes, 'alertRecipients', f.alert_recipients,
  'shrinkGuard', json_build_object('maxDeactivatePercent', f.max_deactivate_percent, 'maxDeactivateCount', f.max_deactivate_count),
  'nextRunAt', iso_utc(f.next_run_at),
  'lastRun', (select json_build_object('id', r.id, 'trigger', r.trigger, 'status', r.status, 'counts', r.counts,
                'startedAt', iso_utc(r.started_at), 'finishedAt', iso_utc(r.finished_at))
              from data_hub_runs r where r.flow_id = f.id and not r.preview order by r.created_at desc, r.id desc limit 1),
  'createdAt', iso_utc(f.created_at), 'updatedAt', iso_utc(f.updated_at))`;

/** A flow's settings, whole: what a create gives (with defaults) or a change leaves. */
interface FlowSettings {
  name: string;
  connectionId: string;
  mappingId: string;
  direction: Direction;
  format: SourceFormat;
  encoding: FileEncoding;
  fileTemplate: string;
  mode: FlowMode;
  formulaSafety: FormulaSafety;
  schedule: { cron: string; timezone: string } | null;
  paused: boolean;
  muted: boolean;
  missingAfterMinutes: number;
  alertRecipients: string[];
  shrinkGuard: { maxDeactivatePercent: number; maxDeactivateCount: number };
}

/** The flow's latest run that is not a preview, in brief. */
export interface LastRun {
  id: string;
  trigger: 'manual' | 'schedule';
  status: string;
  counts: Record<string, number>;
  startedAt: string | null;
  finishedAt: string | null;
}

export type FlowDocument = FlowSettings & {
  id: string;
  nextRunAt: string | null;
  lastRun: LastRun | null;
  createdAt: string;
  updatedAt: string;
};

const DEFAULTS = {
  encoding: 'utf-8',
  mode: 'upsert',
  formulaSafety: 'escape',
  schedule: null,
  paused: false,
  muted: false,
  missingAfterMinutes: 60,
  alertRecipients: [],
} as const;
const SHRINK_GUARD_DEFAULTS = { maxDeactivatePercent: 10, maxDeactivateCount: 500 };

/**
 * Flows (contract section 9): checked against what they name (a connection and a mapping of the
 * store, a mapping of the flow's direction, `replace` only where the structure offers it, a connection
 * that can take the direction), and scheduled by their cron expression in their time zone.
 */
@Injectable()
export class FlowsService {
  constructor(private readonly em: EntityManager) {}

  async list(admin: AdminPrincipal, query: ListQueryDto): Promise<{ items: FlowDocument[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = newestFirst('f', query.cursor);
    const { rows } = await sql<{ doc: FlowDocument; id: string; sort_at: string }>`
      select ${DOC} as doc, f.id, ${order.sortAt} as sort_at from data_hub_flows f
      where f.store_id = ${admin.storeId} and ${order.where}
      ${order.order} limit ${limit + 1}`.execute(this.db());
    const page = pageOf(rows, limit);
    return { items: page.rows.map((row) => row.doc), nextCursor: page.nextCursor };
  }

  async get(admin: AdminPrincipal, id: string): Promise<FlowDocument> {
    await this.settings(admin, id);
    return this.document(id);
  }

  async create(admin: AdminPrincipal, body: CreateFlowDto): Promise<FlowDocument> {
    const settings: FlowSettings = {
      ...DEFAULTS,
      ...definedOf(body),
      alertRecipients: body.alertRecipients ?? [],
      shrinkGuard: { ...SHRINK_GUARD_DEFAULTS, ...definedOf(body.shrinkGuard ?? {}) },
    } as FlowSettings;
    await this.check(admin, settings);
    const { rows } = await sql<{ id: string }>`
      insert into data_hub_flows (store_id, created_by, ${sql.raw(COLUMNS.join(', '))})
      values (${admin.storeId}, ${admin.staff!.id}, ${sql.join(columnValues(settings))})
      returning id`.execute(this.db());
    return this.document(rows[0].id);
  }

  /**
   * Changes what is given; the schedule's next due time follows (none while paused). The direction GET
   * returned is taken back as it is (the members the server owns never reach here: see ServerOwned).
   */
  async update(admin: AdminPrincipal, id: string, body: UpdateFlowDto): Promise<FlowDocument> {
    await this.em.fork().transactional(async (em) => {
      const current = await this.settings(admin, id, em);
      const { direction, ...changes } = body;
      refuseChanges([
        {
          field: 'direction',
          sent: direction,
          current: current.direction,
          message: {
            en: `A flow’s direction cannot change (this one ${current.direction}s): create a new flow with a mapping for ${direction}s.`,
            ar: `لا يتغير اتجاه المسار (هذا المسار لـ ${current.direction}): أنشئ مسارًا جديدًا بربط لـ ${direction}.`,
          },
        },
      ]);
      const settings: FlowSettings = {
        ...current,
        ...definedOf(changes),
        shrinkGuard: { ...current.shrinkGuard, ...definedOf(body.shrinkGuard ?? {}) },
      } as FlowSettings;
      await this.check(admin, settings, em);
      await sql`
        update data_hub_flows set (${sql.raw(COLUMNS.join(', '))}) = (${sql.join(columnValues(settings))}), updated_at = now()
        where id = ${id}`.execute(this.db(em));
    });
    return this.document(id);
  }

  /** A flow of the caller's store, whole; 404 for any other id. Inside a transaction (`em`) its row is locked. */
  async settings(admin: AdminPrincipal, id: string, em?: EntityManager): Promise<FlowSettings> {
    if (!UUID_PATTERN.test(id)) throw new ApiError('NOT_FOUND');
    const { rows } = await sql<{ doc: FlowSettings }>`
      select ${DOC} as doc from data_hub_flows f where f.id = ${id} and f.store_id = ${admin.storeId} ${em ? sql`for update` : sql``}`.execute(
      this.db(em),
    );
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    return rows[0].doc;
  }

  private async check(admin: AdminPrincipal, settings: FlowSettings, em?: EntityManager): Promise<void> {
    const { rows: connections } = await sql<{ kind: ConnectionKind }>`
      select kind from data_hub_connections where id = ${settings.connectionId} and store_id = ${admin.storeId}`.execute(this.db(em));
    if (!connections[0])
      throw invalidField('connectionId', 'unknown', {
        en: 'The store has no connection with this id.',
        ar: 'لا يوجد في المتجر اتصال بهذا المعرّف.',
      });
    const { rows: mappings } = await sql<{ structure: string; direction: Direction }>`
      select structure, direction from data_hub_mappings where id = ${settings.mappingId} and store_id = ${admin.storeId}`.execute(
      this.db(em),
    );
    if (!mappings[0])
      throw invalidField('mappingId', 'unknown', {
        en: 'The store has no mapping with this id.',
        ar: 'لا يوجد في المتجر ربط بهذا المعرّف.',
      });
    if (mappings[0].direction !== settings.direction) {
      throw invalidField('mappingId', 'direction_mismatch', {
        en: `The mapping is for ${mappings[0].direction}s; this flow ${settings.direction}s.`,
        ar: `الربط مخصص لـ ${mappings[0].direction}، وهذا المسار لـ ${settings.direction}.`,
      });
    }
    if (settings.direction === 'export' && settings.fileTemplate.includes('*')) {
      throw invalidField('fileTemplate', 'wildcard_in_export', {
        en: 'An export writes one file by this name: * stands for any characters and names none. Use letters, digits, . _ - and the date tokens ({yyyy}{MM}{dd}…).',
        ar: 'يكتب التصدير ملفًا واحدًا بهذا الاسم: يدل * على أي محارف ولا يسمّي ملفًا. استخدم الحروف والأرقام و. _ - ورموز التاريخ ({yyyy}{MM}{dd}…).',
      });
    }
    if (settings.format === 'xlsx' && settings.encoding !== 'utf-8') {
      throw invalidField('encoding', 'not_for_xlsx', {
        en: 'An XLSX file carries its text as Unicode: an encoding is for CSV and JSON lines only.',
        ar: 'يحمل ملف XLSX نصوصه بترميز يونيكود: الترميز لملفات CSV وJSON lines فقط.',
      });
    }
    if (connections[0].kind === 'database_read' && settings.direction === 'export') {
      throw invalidField('connectionId', 'read_only', {
        en: 'A database_read connection can only be imported from.',
        ar: 'لا يُستورد من اتصال database_read إلا استيرادًا.',
      });
    }
    if (settings.mode === 'replace') {
      const structure = structureNamed(mappings[0].structure)!;
      if (settings.direction !== 'import' || !structure.deactivation) {
        const offering = STRUCTURES.filter((candidate) => candidate.deactivation).map((candidate) => candidate.name);
        throw invalidField('mode', 'replace_unsupported', {
          en: `replace is offered by imports of ${offering.join(', ')} only: it needs a way to deactivate what a file no longer holds.`,
          ar: `لا يتاح replace إلا لاستيراد ${offering.join('، ')}: يحتاج إلى طريقة لإيقاف ما لم يعد في الملف.`,
        });
      }
    }
  }

  private async document(id: string): Promise<FlowDocument> {
    const { rows } = await sql<{ doc: FlowDocument }>`select ${DOC} as doc from data_hub_flows f where f.id = ${id}`.execute(this.db());
    return rows[0].doc;
  }

  private db(em: EntityManager = this.em): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }
}

const COLUMNS = [
  'name',
  'connection_id',
  'mapping_id',
  'direction',
  'format',
  'encoding',
  'file_template',
  'mode',
  'formula_safety',
  'schedule_cron',
  'schedule_timezone',
  'paused',
  'muted',
  'missing_after_minutes',
  'alert_recipients',
  'max_deactivate_percent',
  'max_deactivate_count',
  'next_run_at',
];

/** The settings as COLUMNS' values, the schedule's next due time computed from now. */
function columnValues(settings: FlowSettings) {
  const next = settings.schedule && !settings.paused ? nextDueAt(settings.schedule.cron, settings.schedule.timezone, new Date()) : null;
  return [
    sql`${settings.name}`,
    sql`${settings.connectionId}::uuid`,
    sql`${settings.mappingId}::uuid`,
    sql`${settings.direction}`,
    sql`${settings.format}`,
    sql`${settings.encoding}`,
    sql`${settings.fileTemplate}`,
    sql`${settings.mode}`,
    sql`${settings.formulaSafety}`,
    sql`${settings.schedule?.cron ?? null}`,
    sql`${settings.schedule?.timezone ?? null}`,
    sql`${settings.paused}`,
    sql`${settings.muted}`,
    sql`${settings.missingAfterMinutes}`,
    sql`${settings.alertRecipients}::text[]`,
    sql`${settings.shrinkGuard.maxDeactivatePercent}`,
    sql`${settings.shrinkGuard.maxDeactivateCount}`,
    sql`${next?.toISOString() ?? null}::timestamptz`,
  ];
}

/** The members that were given (a PUT leaves the others as they are). */
function definedOf<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Partial<T>;
}
