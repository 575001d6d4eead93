import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { newestFirst, pageOf } from '../../infra/database/newest-first.js';
import type { CreateMappingDto, MappingFieldDto, UpdateMappingDto } from '../dto/mapping.dto.js';
import { refuseChanges } from '../dto/read-back.js';
import type { MappingField } from '../entities/mapping.entity.js';
import { structureNamed, type Direction } from '../structures/structures.js';
import { checkMapping } from './mapping-check.js';

const DOC = sql`json_build_object('id', m.id, 'name', v.name, 'structure', m.structure, 'direction', m.direction,
  'fields', v.fields, 'version', v.version, 'createdAt', iso_utc(m.created_at), 'updatedAt', iso_utc(v.created_at))`;

export interface MappingDocument {
  id: string;
  name: string;
  structure: string;
  direction: Direction;
  fields: MappingField[];
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface MappingVersionDocument {
  version: number;
  name: string;
  fields: MappingField[];
  restoredFrom: number | null;
  createdBy: string;
  createdAt: string;
}

interface StoredMapping {
  id: string;
  structure: string;
  direction: Direction;
  version: number;
}

/**
 * Versioned mappings (contract section 9). Every PUT writes version N+1 whole and keeps every earlier
 * one; a restore writes a new version equal to an old one. A mapping is checked against its structure
 * and the transforms' schemas on every write (400 mapping_invalid, per field), the mapping row locked
 * meanwhile so that two changes at once get two version numbers.
 */
@Injectable()
export class MappingsService {
  constructor(private readonly em: EntityManager) {}

  async list(admin: AdminPrincipal, query: ListQueryDto): Promise<{ items: MappingDocument[]; nextCursor: string | null }> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = newestFirst('m', query.cursor);
    const { rows } = await sql<{ doc: MappingDocument; id: string; sort_at: string }>`
      select ${DOC} as doc, m.id, ${order.sortAt} as sort_at
      from data_hub_mappings m join data_hub_mapping_versions v on v.mapping_id = m.id and v.version = m.version
      where m.store_id = ${admin.storeId} and ${order.where}
      ${order.order}
      limit ${limit + 1}`.execute(this.db());
    const page = pageOf(rows, limit);
    return { items: page.rows.map((row) => row.doc), nextCursor: page.nextCursor };
  }

  async get(admin: AdminPrincipal, id: string): Promise<MappingDocument> {
    await this.stored(admin, id);
    return this.document(id);
  }

  async create(admin: AdminPrincipal, body: CreateMappingDto): Promise<MappingDocument> {
    const fields = this.checked(body.structure, body.direction, body.fields);
    const id = await this.em.fork().transactional(async (em) => {
      const { rows } = await sql<{ id: string }>`
        insert into data_hub_mappings (store_id, name, structure, direction, created_by)
        values (${admin.storeId}, ${body.name}, ${body.structure}, ${body.direction}, ${admin.staff!.id})
        returning id`.execute(this.db(em));
      await this.writeVersion(em, rows[0].id, 1, body.name, fields, null, admin);
      return rows[0].id;
    });
    return this.document(id);
  }

  /**
   * Writes version N+1, whatever it holds: the same fields sent back are a version too (contract section 9,
   * "each PUT creates version N+1"). The structure and direction GET returned are taken back as they are.
   */
  async update(admin: AdminPrincipal, id: string, body: UpdateMappingDto): Promise<MappingDocument> {
    const version = await this.em.fork().transactional(async (em) => {
      const stored = await this.stored(admin, id, em);
      refuseChanges([
        {
          field: 'structure',
          sent: body.structure,
          current: stored.structure,
          message: {
            en: `A mapping’s structure cannot change (this one maps ${stored.structure}): create a new mapping for ${body.structure}.`,
            ar: `لا يتغير هيكل الربط (هذا الربط لـ ${stored.structure}): أنشئ ربطًا جديدًا لـ ${body.structure}.`,
          },
        },
        {
          field: 'direction',
          sent: body.direction,
          current: stored.direction,
          message: {
            en: `A mapping’s direction cannot change (this one is for ${stored.direction}s): create a new mapping for ${body.direction}s.`,
            ar: `لا يتغير اتجاه الربط (هذا الربط لـ ${stored.direction}): أنشئ ربطًا جديدًا لـ ${body.direction}.`,
          },
        },
      ]);
      const fields = this.checked(stored.structure, stored.direction, body.fields);
      const name = body.name ?? (await this.version(em, id, stored.version)).name;
      return this.next(em, stored, name, fields, null, admin);
    });
    return this.document(id, version);
  }

  /** Every version, newest first, each whole. */
  async versions(admin: AdminPrincipal, id: string): Promise<{ items: MappingVersionDocument[] }> {
    await this.stored(admin, id);
    const { rows } = await sql<MappingVersionDocument>`
      select version, name, fields, restored_from as "restoredFrom", created_by as "createdBy", iso_utc(created_at) as "createdAt"
      from data_hub_mapping_versions where mapping_id = ${id} order by version desc`.execute(this.db());
    return { items: rows };
  }

  /** A new version equal to `version`, checked again: a structure or transform may have changed since. */
  async restore(admin: AdminPrincipal, id: string, version: number): Promise<MappingDocument> {
    const written = await this.em.fork().transactional(async (em) => {
      const stored = await this.stored(admin, id, em);
      const earlier = await this.version(em, id, version);
      const fields = this.checked(stored.structure, stored.direction, earlier.fields);
      return this.next(em, stored, earlier.name, fields, version, admin);
    });
    return this.document(id, written);
  }

  /** A mapping of the caller's store; 404 for any other id. Inside a transaction (`em`) its row is locked. */
  async stored(admin: AdminPrincipal, id: string, em?: EntityManager): Promise<StoredMapping> {
    if (!UUID_PATTERN.test(id)) throw new ApiError('NOT_FOUND');
    const { rows } = await sql<StoredMapping>`
      select id, structure, direction, version from data_hub_mappings
      where id = ${id} and store_id = ${admin.storeId} ${em ? sql`for update` : sql``}`.execute(this.db(em));
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    return rows[0];
  }

  /** The fields as stored (`transforms` always a list), or 400 mapping_invalid naming each problem. */
  private checked(structureName: string, direction: Direction, fields: readonly (MappingFieldDto | MappingField)[]): MappingField[] {
    const normalized: MappingField[] = fields.map((field) => ({
      target: field.target,
      ...(field.sources ? { sources: [...field.sources] } : { source: field.source }),
      transforms: (field.transforms ?? []).map((step) =>
        step.args === undefined ? { name: step.name } : { name: step.name, args: step.args },
      ),
      ...(field.clearWhenEmpty ? { clearWhenEmpty: true } : {}),
    }));
    const errors = checkMapping(structureNamed(structureName)!, direction, normalized);
    if (errors.length > 0) throw new ApiError('mapping_invalid', { errors });
    return normalized;
  }

  private async next(
    em: EntityManager,
    stored: StoredMapping,
    name: string,
    fields: MappingField[],
    restoredFrom: number | null,
    admin: AdminPrincipal,
  ): Promise<number> {
    const version = stored.version + 1;
    await sql`update data_hub_mappings set version = ${version}, name = ${name}, updated_at = now() where id = ${stored.id}`.execute(
      this.db(em),
    );
    await this.writeVersion(em, stored.id, version, name, fields, restoredFrom, admin);
    return version;
  }

  private async writeVersion(
    em: EntityManager,
    id: string,
    version: number,
    name: string,
    fields: MappingField[],
    restoredFrom: number | null,
    admin: AdminPrincipal,
  ): Promise<void> {
    await sql`
      insert into data_hub_mapping_versions (mapping_id, version, name, fields, restored_from, created_by)
      values (${id}, ${version}, ${name}, ${JSON.stringify(fields)}::jsonb, ${restoredFrom}, ${admin.staff!.id})`.execute(this.db(em));
  }

  private async version(em: EntityManager, id: string, version: number): Promise<{ name: string; fields: MappingField[] }> {
    const { rows } = await sql<{ name: string; fields: MappingField[] }>`
      select name, fields from data_hub_mapping_versions where mapping_id = ${id} and version = ${version}`.execute(this.db(em));
    if (!rows[0]) {
      throw new ApiError('NOT_FOUND', {
        message: { en: `The mapping has no version ${version}.`, ar: `لا يوجد للربط الإصدار ${version}.` },
      });
    }
    return rows[0];
  }

  /** The mapping at `version` (a change answers with the version it wrote, whatever came after), else its current one. */
  private async document(id: string, version?: number): Promise<MappingDocument> {
    const { rows } = await sql<{ doc: MappingDocument }>`
      select ${DOC} as doc from data_hub_mappings m
      join data_hub_mapping_versions v on v.mapping_id = m.id and v.version = coalesce(${version ?? null}::int, m.version)
      where m.id = ${id}`.execute(this.db());
    return rows[0].doc;
  }

  private db(em: EntityManager = this.em): Kysely<unknown> {
    return em.getKysely() as Kysely<unknown>;
  }
}
