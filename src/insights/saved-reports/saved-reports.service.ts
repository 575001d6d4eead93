import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { AdminPrincipal } from '../../auth/access/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { createValidationPipe } from '../../common/errors/validation.js';
import { decodeCursor, encodeCursor, UTC_MICROS_PATTERN, UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import type { InsightsArea } from '../../common/permissions.js';
import { BuilderService } from '../builder/builder.service.js';
import { REPORTS } from '../definitions/reports.js';
import {
  reportDefinition,
  ReportDefinitionDto,
  type CreateSavedReportDto,
  type ReportDefinition,
  type UpdateSavedReportDto,
} from '../dto/report-source.dto.js';
import { requireAreas, requireViewPermissions, viewableAreas } from '../query/area-access.js';
import { notEntitled } from '../query/ranges.js';
import { ReportService } from '../reports/report.service.js';

const DOC = sql`json_build_object('id', r.id, 'name', r.name, 'definition', r.definition, 'createdBy', r.created_by,
                                  'createdAt', iso_utc(r.created_at), 'updatedAt', iso_utc(r.updated_at))`;

export interface SavedReportDocument {
  id: string;
  name: string;
  definition: ReportDefinition;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

interface StoredReport {
  id: string;
  definition: unknown;
  areas: InsightsArea[];
}

/**
 * Saved reports (contract section 8): a definition is checked like the request it stands for when it
 * is saved and again when it runs, so one that has become invalid (a measure gone, a plan downgraded)
 * answers with the request's own error. A staff member sees the saved reports whose areas they may view.
 */
@Injectable()
export class SavedReportsService {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly em: EntityManager,
    private readonly reports: ReportService,
    private readonly builder: BuilderService,
  ) {}

  async list(admin: AdminPrincipal, query: ListQueryDto): Promise<{ items: SavedReportDocument[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor<[string, string]>(query.cursor, [UTC_MICROS_PATTERN, UUID_PATTERN]) : undefined;
    const { rows } = await sql<{ doc: SavedReportDocument; id: string; sort_at: string }>`
      select ${DOC} as doc, r.id, iso_utc_micros(r.created_at) as sort_at
      from insights_saved_reports r
      where r.store_id = ${admin.storeId} and r.areas <@ ${viewableAreas(admin)}::text[]
      ${after ? sql`and (r.created_at, r.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql``}
      order by r.created_at desc, r.id desc
      limit ${limit + 1}`.execute(this.db());
    const last = rows.length > limit ? rows[limit - 1] : undefined;
    return { items: rows.slice(0, limit).map((row) => row.doc), nextCursor: last ? encodeCursor([last.sort_at, last.id]) : null };
  }

  async get(admin: AdminPrincipal, id: string): Promise<SavedReportDocument> {
    await this.stored(admin, id);
    return this.document(id);
  }

  async create(admin: AdminPrincipal, body: CreateSavedReportDto): Promise<SavedReportDocument> {
    const definition = reportDefinition(body.definition);
    const areas = await this.check(definition, admin, true);
    const { rows } = await sql<{ id: string }>`
      insert into insights_saved_reports (store_id, name, definition, areas, created_by)
      values (${admin.storeId}, ${body.name}, ${JSON.stringify(definition)}::jsonb, ${areas}::text[], ${admin.staff!.id})
      returning id`.execute(this.db());
    return this.document(rows[0].id);
  }

  async update(admin: AdminPrincipal, id: string, body: UpdateSavedReportDto): Promise<SavedReportDocument> {
    await this.stored(admin, id);
    const definition = body.definition && reportDefinition(body.definition);
    const areas = definition ? await this.check(definition, admin, true) : undefined;
    await sql`
      update insights_saved_reports set
        name = coalesce(${body.name ?? null}, name),
        definition = coalesce(${definition ? JSON.stringify(definition) : null}::jsonb, definition),
        areas = coalesce(${areas ?? null}::text[], areas),
        updated_at = now()
      where id = ${id} and store_id = ${admin.storeId}`.execute(this.db());
    return this.document(id);
  }

  async remove(admin: AdminPrincipal, id: string): Promise<void> {
    await this.stored(admin, id);
    await sql`delete from insights_saved_reports where id = ${id} and store_id = ${admin.storeId}`.execute(this.db());
  }

  /** Runs the definition as its request would run, page by page for a report's table. */
  async run(admin: AdminPrincipal, id: string, page: ListQueryDto) {
    const stored = await this.stored(admin, id);
    const definition = await this.definitionOf(stored);
    await this.check(definition, admin);
    if ('builder' in definition) return this.builder.run(definition.builder, admin);
    return this.reports.run(
      definition.report,
      { ...definition.params, limit: page.limit ?? definition.params?.limit, cursor: page.cursor },
      admin,
    );
  }

  /**
   * Everything its request would check, answering the areas it reads: the areas' permissions and plan,
   * and for a builder query the plan's builder (running a saved builder report needs the view
   * permissions only, as for a built-in report; saving one needs the builder's permission too).
   */
  private async check(definition: ReportDefinition, admin: AdminPrincipal, saving = false): Promise<InsightsArea[]> {
    if ('builder' in definition) {
      if (saving && !admin.permissions.includes('insights.builder.use')) {
        throw new ApiError('missing_permission', { details: { requiredPermission: 'insights.builder.use' } });
      }
      if (!admin.entitlements.includes('feature:builder')) throw notEntitled('feature:builder');
      return this.builder.validate(definition.builder, admin);
    }
    const area = REPORTS[definition.report].area;
    requireAreas(admin, [area]);
    await this.reports.validate(definition.report, { ...definition.params }, admin);
    return [area];
  }

  /** The stored definition, checked against today's shape of a definition (a field since removed is refused, not run). */
  private async definitionOf(stored: StoredReport): Promise<ReportDefinition> {
    return reportDefinition(await this.validation.transform(stored.definition, { type: 'body', metatype: ReportDefinitionDto }));
  }

  /** A saved report of the caller's store whose areas the caller may view; 404 for any other id. */
  private async stored(admin: AdminPrincipal, id: string): Promise<StoredReport> {
    if (!UUID_PATTERN.test(id)) throw new ApiError('NOT_FOUND');
    const { rows } = await sql<StoredReport>`
      select id, definition, areas from insights_saved_reports where id = ${id} and store_id = ${admin.storeId}`.execute(this.db());
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    requireViewPermissions(admin, rows[0].areas);
    return rows[0];
  }

  private async document(id: string): Promise<SavedReportDocument> {
    const { rows } = await sql<{ doc: SavedReportDocument }>`select ${DOC} as doc from insights_saved_reports r where r.id = ${id}`.execute(
      this.db(),
    );
    return rows[0].doc;
  }

  private db(): Kysely<unknown> {
    return this.em.getKysely() as Kysely<unknown>;
  }
}
