import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import type { InsightsArea } from '../../common/permissions.js';
import { newestFirst, pageOf } from '../../infra/database/newest-first.js';
import { reportDefinition, type CreateSavedReportDto, type ReportDefinition, type UpdateSavedReportDto } from '../dto/report-source.dto.js';
import { requireViewPermissions, viewableAreas } from '../query/area-access.js';
import { ReportDefinitions } from './report-definitions.js';

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
  constructor(
    private readonly em: EntityManager,
    private readonly definitions: ReportDefinitions,
  ) {}

  async list(admin: AdminPrincipal, query: ListQueryDto): Promise<{ items: SavedReportDocument[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = newestFirst('r', query.cursor);
    const { rows } = await sql<{ doc: SavedReportDocument; id: string; sort_at: string }>`
      select ${DOC} as doc, r.id, ${order.sortAt} as sort_at
      from insights_saved_reports r
      where r.store_id = ${admin.storeId} and r.areas <@ ${viewableAreas(admin)}::text[] and ${order.where}
      ${order.order}
      limit ${limit + 1}`.execute(this.db());
    const page = pageOf(rows, limit);
    return { items: page.rows.map((row) => row.doc), nextCursor: page.nextCursor };
  }

  async get(admin: AdminPrincipal, id: string): Promise<SavedReportDocument> {
    await this.stored(admin, id);
    return this.document(id);
  }

  async create(admin: AdminPrincipal, body: CreateSavedReportDto): Promise<SavedReportDocument> {
    const definition = reportDefinition(body.definition);
    const areas = await this.definitions.check(definition, admin, true);
    const { rows } = await sql<{ id: string }>`
      insert into insights_saved_reports (store_id, name, definition, areas, created_by)
      values (${admin.storeId}, ${body.name}, ${JSON.stringify(definition)}::jsonb, ${areas}::text[], ${admin.staff!.id})
      returning id`.execute(this.db());
    return this.document(rows[0].id);
  }

  async update(admin: AdminPrincipal, id: string, body: UpdateSavedReportDto): Promise<SavedReportDocument> {
    await this.stored(admin, id);
    const definition = body.definition && reportDefinition(body.definition);
    const areas = definition ? await this.definitions.check(definition, admin, true) : undefined;
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
    const definition = await this.definition(admin, id);
    await this.definitions.check(definition, admin, false);
    return this.definitions.run(definition, admin, page);
  }

  /** The definition of a saved report the caller may read, in today's shape of one; 404 for any other id. */
  async definition(admin: AdminPrincipal, id: string): Promise<ReportDefinition> {
    return this.definitions.parse((await this.stored(admin, id)).definition);
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
