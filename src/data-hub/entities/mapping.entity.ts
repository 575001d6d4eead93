import { defineEntity, p } from '@mikro-orm/core';
import { StaffMember } from '../../auth/entities/staff-member.entity.js';
import { createdAt, updatedAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import { DIRECTIONS } from '../structures/structures.js';

/** One field of a mapping: a target filled from a source (or several) through transforms. */
export interface MappingField {
  target: string;
  source?: string;
  sources?: string[];
  transforms: { name: string; args?: Record<string, unknown> }[];
  /** Import: an empty cell clears the record's value (an optional field's) instead of leaving it as it is. */
  clearWhenEmpty?: boolean;
}

/** How a structure is filled from a source, or written out as a file (contract section 9); `version` is the current one. */
const MappingSchema = defineEntity({
  name: 'Mapping',
  tableName: 'data_hub_mappings',
  indexes: [{ properties: ['store', 'createdAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    name: p.string().length(120),
    structure: p.text(),
    direction: p.enum(DIRECTIONS),
    version: p.integer().default(1),
    createdBy: () => p.manyToOne(StaffMember).mapToPk().fieldName('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class Mapping extends MappingSchema.class {}
MappingSchema.setClass(Mapping);

/** Every version of a mapping, kept whole: a run names the one it used. */
const MappingVersionSchema = defineEntity({
  name: 'MappingVersion',
  tableName: 'data_hub_mapping_versions',
  properties: {
    mapping: () => p.manyToOne(Mapping).mapToPk().primary().deleteRule('cascade').updateRule('no action'),
    version: p.integer().primary(),
    name: p.string().length(120),
    fields: p.json<MappingField[]>(),
    /** The version a restore copied. */
    restoredFrom: p.integer().nullable(),
    createdBy: () => p.manyToOne(StaffMember).mapToPk().fieldName('created_by'),
    createdAt: createdAt(),
  },
});

export class MappingVersion extends MappingVersionSchema.class {}
MappingVersionSchema.setClass(MappingVersion);
