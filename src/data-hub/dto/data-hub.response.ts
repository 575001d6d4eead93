import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { FORMULA_SAFETY } from '../../common/formula-safety.js';
import { ENTITLEMENTS, STORE_PLANS } from '../../common/permissions.js';
import { CONNECTION_KINDS, CONNECTION_STATUSES } from '../entities/connection.entity.js';
import { FLOW_MODES } from '../entities/flow.entity.js';
import { RUN_STATUSES, RUN_TRIGGERS } from '../entities/run.entity.js';
import { DIRECTIONS, FIELD_TYPES, STRUCTURES } from '../structures/structures.js';
import { FILE_ENCODINGS, SOURCE_FORMATS } from '../../infra/tabular/formats.js';
import { MappingFieldDto } from './mapping.dto.js';

/** The data hub's answers (contract section 9), as the OpenAPI document describes them. */

const NULLABLE_TIME = { type: 'string', format: 'date-time', nullable: true } as const;
const JSON_VALUE = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', additionalProperties: true },
  ],
  nullable: true,
};

/** What the merchant reads for a structure, a field, a transform or an arg, beside its identifier (`name`). */
export class LabelDoc {
  @ApiProperty() label_en: string;
  @ApiProperty() label_ar: string;
}

export class BilingualMessageDoc {
  @ApiProperty() message_en: string;
  @ApiProperty() message_ar: string;
}

export class StructureFieldDoc extends LabelDoc {
  @ApiProperty() name: string;
  @ApiProperty({ enum: FIELD_TYPES }) type: string;
  @ApiProperty({
    description:
      'The key, or needed to create a record: an import row that would create one without it is rejected (`required_to_create`); rows updating a record need only the key.',
  })
  required: boolean;
  @ApiProperty({ description: 'An import mapping may mark it `clearWhenEmpty`: an empty cell then clears the record’s value.' })
  clearable: boolean;
  @ApiPropertyOptional({ type: 'integer', description: 'For `text`: the column’s length.' }) maxLength?: number;
  @ApiPropertyOptional({ type: [String], description: 'For `status`: the values allowed.' }) values?: string[];
  @ApiProperty() description_en: string;
  @ApiProperty() description_ar: string;
}

export class StructureDoc extends LabelDoc {
  @ApiProperty({ enum: STRUCTURES.map((structure) => structure.name) }) name: string;
  @ApiProperty({ enum: DIRECTIONS, isArray: true }) directions: string[];
  @ApiProperty({ description: 'The natural key: a record of the file is matched to the store’s record by it.' }) key: string;
  @ApiProperty({
    description:
      'Whether an import creates a record for a key the store lacks (its `required` fields then needed); else such a row is rejected `unknown_key`.',
  })
  creates: boolean;
  @ApiProperty({ type: [StructureFieldDoc] }) fields: StructureFieldDoc[];
  @ApiProperty({
    type: BilingualMessageDoc,
    nullable: true,
    description: 'What a `replace` import does to a record the file no longer holds; null: `replace` is not offered.',
  })
  deactivation: BilingualMessageDoc | null;
}

export class StructureListDoc {
  @ApiProperty({ type: [StructureDoc] }) items: StructureDoc[];
}

/** The part of JSON Schema a transform's args are described with. */
export class JsonSchemaDoc {
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }) type?: string | string[];
  @ApiPropertyOptional({ type: 'array', items: {} }) enum?: unknown[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: { $ref: getSchemaPath(JsonSchemaDoc) } })
  properties?: Record<string, JsonSchemaDoc>;
  @ApiPropertyOptional({ type: [String] }) required?: string[];
  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { $ref: getSchemaPath(JsonSchemaDoc) }] }) additionalProperties?:
    boolean | JsonSchemaDoc;
  @ApiPropertyOptional({ type: () => JsonSchemaDoc }) items?: JsonSchemaDoc;
  @ApiPropertyOptional(JSON_VALUE) default?: unknown;
}

export class TransformDoc extends LabelDoc {
  @ApiProperty() name: string;
  @ApiProperty({ type: JsonSchemaDoc, description: 'The JSON schema of its args object.' }) args: JsonSchemaDoc;
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: { label_en: { type: 'string' }, label_ar: { type: 'string' } },
      required: ['label_en', 'label_ar'],
    },
    description: 'The label of each arg, by its name in `args.properties`.',
  })
  argLabels: Record<string, LabelDoc>;
  @ApiProperty() description_en: string;
  @ApiProperty() description_ar: string;
}

export class TransformListDoc {
  @ApiProperty({ type: [TransformDoc] }) items: TransformDoc[];
}

export class ConnectorFieldDoc {
  @ApiProperty({ description: 'The member of `config` or `credentials` it fills.' }) name: string;
  @ApiProperty({ enum: ['text', 'number', 'checkbox', 'textarea', 'secret'], description: 'The control a form offers for it.' })
  input: string;
  @ApiProperty({ description: 'Whether a connection of the kind must give it (credentials: unless another alternative is given).' })
  required: boolean;
}

export class ConnectorKindDoc {
  @ApiProperty({ enum: CONNECTION_KINDS }) kind: string;
  @ApiProperty({ enum: ENTITLEMENTS, nullable: true, description: 'The plan entitlement it needs, if any.' })
  entitlement: string | null;
  @ApiProperty({ enum: STORE_PLANS, nullable: true, description: 'The plan that first has that entitlement.' }) plan: string | null;
  @ApiProperty({
    description:
      'A file kind: it has files a flow reads or writes and a report can be delivered to; else a query kind, read by imports only.',
  })
  files: boolean;
  @ApiProperty({ type: [ConnectorFieldDoc], description: 'Its `config`, in the order a form shows it.' }) config: ConnectorFieldDoc[];
  @ApiProperty({ type: [ConnectorFieldDoc], description: 'Its write-only `credentials`, in the order a form shows them.' })
  credentials: ConnectorFieldDoc[];
}

export class ConnectorKindListDoc {
  @ApiProperty({ type: [ConnectorKindDoc], description: 'In the order a form offers them.' }) items: ConnectorKindDoc[];
}

export class ConnectionTestDoc {
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty() ok: boolean;
  @ApiPropertyOptional({ description: 'A failed test’s reason.' }) code?: string;
  @ApiPropertyOptional() message_en?: string;
  @ApiPropertyOptional() message_ar?: string;
}

export class PinnedHostKeyDoc {
  @ApiProperty() algorithm: string;
  @ApiProperty() fingerprint: string;
  @ApiProperty({ format: 'date-time' }) pinnedAt: string;
}

export class CredentialsDescriptionDoc {
  @ApiProperty({ description: 'Whether credentials are stored (they are never answered).' }) set: boolean;
  @ApiProperty({ type: [String], description: 'The names of the stored credentials’ members.' }) fields: string[];
}

export class ConnectionDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: CONNECTION_KINDS }) kind: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The config of its kind (`GET /connectors`).' })
  config: Record<string, unknown>;
  @ApiProperty({ type: CredentialsDescriptionDoc }) credentials: CredentialsDescriptionDoc;
  @ApiProperty({ enum: CONNECTION_STATUSES }) status: string;
  @ApiProperty({ type: ConnectionTestDoc, nullable: true }) lastTest: ConnectionTestDoc | null;
  @ApiProperty({ type: PinnedHostKeyDoc, nullable: true, description: 'SFTP: the host key pinned at the first passed test.' })
  hostKey: PinnedHostKeyDoc | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class ConnectionPageDoc {
  @ApiProperty({ type: [ConnectionDoc] }) items: ConnectionDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class SourceFieldDoc {
  @ApiProperty() name: string;
  @ApiPropertyOptional({ description: 'A query column’s PostgreSQL type; files name no types.' }) type?: string;
}

export class FieldsSourceDoc {
  @ApiProperty({ enum: ['file', 'query'] }) kind: string;
  @ApiPropertyOptional({ description: 'A file’s: the newest matching file.' }) name?: string;
  @ApiPropertyOptional({ type: 'integer' }) bytes?: number;
  @ApiPropertyOptional({ format: 'date-time' }) modifiedAt?: string;
}

export class SourceFieldsDoc {
  @ApiProperty({ type: FieldsSourceDoc }) source: FieldsSourceDoc;
  @ApiProperty({ type: [SourceFieldDoc] }) fields: SourceFieldDoc[];
}

export class DropFileDoc {
  @ApiProperty() name: string;
  @ApiProperty({ type: 'integer' }) bytes: number;
  @ApiProperty({ format: 'date-time' }) modifiedAt: string;
}

export class DropFileListDoc {
  @ApiProperty({ type: [DropFileDoc] }) items: DropFileDoc[];
}

export class UploadedFileDoc extends DropFileDoc {
  @ApiProperty() sha256: string;
}

export class MappingDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: STRUCTURES.map((structure) => structure.name), description: 'The structure it maps (`GET /structures`).' })
  structure: string;
  @ApiProperty({ enum: DIRECTIONS }) direction: string;
  @ApiProperty({ type: [MappingFieldDto] }) fields: MappingFieldDto[];
  @ApiProperty({ type: 'integer' }) version: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', description: 'When its current version was saved.' }) updatedAt: string;
}

export class MappingPageDoc {
  @ApiProperty({ type: [MappingDoc] }) items: MappingDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class MappingVersionDoc {
  @ApiProperty({ type: 'integer' }) version: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: [MappingFieldDto] }) fields: MappingFieldDto[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'The version it restored, if it is a restore.' }) restoredFrom:
    number | null;
  @ApiProperty({ format: 'uuid' }) createdBy: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class MappingVersionListDoc {
  @ApiProperty({ type: [MappingVersionDoc] }) items: MappingVersionDoc[];
}

export class RunCountsDoc {
  @ApiPropertyOptional({ type: 'integer' }) read?: number;
  @ApiPropertyOptional({ type: 'integer' }) created?: number;
  @ApiPropertyOptional({ type: 'integer' }) changed?: number;
  @ApiPropertyOptional({ type: 'integer' }) unchanged?: number;
  @ApiPropertyOptional({ type: 'integer' }) deactivated?: number;
  @ApiPropertyOptional({ type: 'integer' }) rejected?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'An export’s rows written.' }) sent?: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'An undo’s: fields (or created records in use) it left as they are, changed since the run.',
  })
  conflicts?: number;
}

export class LastRunDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: RUN_TRIGGERS }) trigger: string;
  @ApiProperty({ enum: RUN_STATUSES }) status: string;
  @ApiProperty({ type: RunCountsDoc, nullable: true }) counts: RunCountsDoc | null;
  @ApiProperty(NULLABLE_TIME) startedAt: string | null;
  @ApiProperty(NULLABLE_TIME) finishedAt: string | null;
}

export class FlowScheduleDoc {
  @ApiProperty({ example: '0 6 * * *' }) cron: string;
  @ApiProperty({ example: 'Asia/Riyadh' }) timezone: string;
}

export class ShrinkGuardDoc {
  @ApiProperty({ type: 'integer' }) maxDeactivatePercent: number;
  @ApiProperty({ type: 'integer' }) maxDeactivateCount: number;
}

export class FlowDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'uuid' }) connectionId: string;
  @ApiProperty({ format: 'uuid' }) mappingId: string;
  @ApiProperty({ enum: DIRECTIONS }) direction: string;
  @ApiProperty({ enum: SOURCE_FORMATS }) format: string;
  @ApiProperty({ enum: FILE_ENCODINGS }) encoding: string;
  @ApiProperty() fileTemplate: string;
  @ApiProperty({ enum: FLOW_MODES }) mode: string;
  @ApiProperty({
    enum: FORMULA_SAFETY,
    description: 'Exports’ CSV and XLSX cells: text that would be a formula behind an apostrophe (`escape`) or as it is (`raw`).',
  })
  formulaSafety: string;
  @ApiProperty({ type: FlowScheduleDoc, nullable: true }) schedule: FlowScheduleDoc | null;
  @ApiProperty() paused: boolean;
  @ApiProperty() muted: boolean;
  @ApiProperty({ type: 'integer' }) missingAfterMinutes: number;
  @ApiProperty({ type: [String] }) alertRecipients: string[];
  @ApiProperty({ type: ShrinkGuardDoc }) shrinkGuard: ShrinkGuardDoc;
  @ApiProperty(NULLABLE_TIME) nextRunAt: string | null;
  @ApiProperty({ type: LastRunDoc, nullable: true, description: 'Its latest run that is not a preview.' }) lastRun: LastRunDoc | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class FlowPageDoc {
  @ApiProperty({ type: [FlowDoc] }) items: FlowDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class RunFileDoc {
  @ApiProperty() name: string;
  @ApiProperty({ type: 'integer' }) bytes: number;
  @ApiProperty({ type: 'string', nullable: true }) sha256: string | null;
}

export class RunRefusalDoc {
  @ApiProperty() code: string;
  @ApiProperty({ type: 'integer' }) wouldDeactivate: number;
  @ApiProperty({ type: 'integer' }) activeRecords: number;
  @ApiProperty({ minimum: 0, maximum: 100, description: 'The share of the active records it would deactivate, to two decimals.' })
  percent: number;
  @ApiProperty({ type: ShrinkGuardDoc }) threshold: ShrinkGuardDoc;
  @ApiPropertyOptional() message_en?: string;
  @ApiPropertyOptional() message_ar?: string;
}

export class RunOverrideDoc {
  @ApiProperty({ type: 'integer' }) maxDeactivatePercent: number;
  @ApiProperty() reason: string;
}

export class RunErrorDoc {
  @ApiProperty() code: string;
  @ApiPropertyOptional() message_en?: string;
  @ApiPropertyOptional() message_ar?: string;
}

export class RowErrorDoc {
  @ApiProperty({ description: 'The target field, or the source column.' }) field: string;
  @ApiProperty() code: string;
  @ApiPropertyOptional() message_en?: string;
  @ApiPropertyOptional() message_ar?: string;
}

export class RejectedRowDoc {
  @ApiProperty({ type: 'integer', nullable: true }) line: number | null;
  @ApiProperty({ type: 'string', nullable: true }) key: string | null;
  @ApiProperty({ ...JSON_VALUE, description: 'The row’s values as read.' }) values: unknown;
  @ApiProperty({ type: [RowErrorDoc] }) errors: RowErrorDoc[];
}

export class RecordRowDoc {
  @ApiProperty({ type: 'string', nullable: true }) key: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) recordId: string | null;
}

export class FieldChangeDoc {
  @ApiProperty({ description: 'The structure’s field.' }) field: string;
  @ApiProperty({ ...JSON_VALUE, description: 'Its value before (a reference as its slug).' }) before: unknown;
  @ApiProperty({ ...JSON_VALUE, description: 'Its value after.' }) after: unknown;
}

export class ChangedRowDoc extends RecordRowDoc {
  @ApiProperty({ type: [FieldChangeDoc] }) changes: FieldChangeDoc[];
}

export class ConflictRowDoc extends RecordRowDoc {
  @ApiProperty({ type: 'string', nullable: true, description: 'The field left as it is; null for a created record in use.' }) field:
    string | null;
  @ApiProperty({ ...JSON_VALUE, description: 'The value the run left.' }) runAfter: unknown;
  @ApiProperty({ ...JSON_VALUE, description: 'The value now.' }) now: unknown;
  @ApiProperty({ enum: ['changed', 'gone', 'in_use'] }) reason: string;
}

export class RunRowsDoc {
  @ApiProperty({ type: [RejectedRowDoc] }) rejected: RejectedRowDoc[];
  @ApiProperty({ type: [RecordRowDoc] }) created: RecordRowDoc[];
  @ApiProperty({ type: [ChangedRowDoc] }) changed: ChangedRowDoc[];
  @ApiProperty({ type: [RecordRowDoc] }) deactivated: RecordRowDoc[];
  @ApiProperty({ type: [ConflictRowDoc] }) conflicts: ConflictRowDoc[];
}

export class RunDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) flowId: string;
  @ApiProperty({ enum: RUN_TRIGGERS }) trigger: string;
  @ApiProperty() preview: boolean;
  @ApiProperty({ enum: RUN_STATUSES }) status: string;
  @ApiProperty({ type: RunCountsDoc, nullable: true }) counts: RunCountsDoc | null;
  @ApiProperty({ type: RunFileDoc, nullable: true }) file: RunFileDoc | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'A preview’s: the rows it read.' }) firstRows: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) mappingVersion: number | null;
  @ApiProperty({ enum: FORMULA_SAFETY, nullable: true, description: 'The setting an export wrote its file with; null for an import.' })
  formulaSafety: string | null;
  @ApiProperty({ type: RunRefusalDoc, nullable: true }) refusal: RunRefusalDoc | null;
  @ApiProperty({ type: RunOverrideDoc, nullable: true }) override: RunOverrideDoc | null;
  @ApiProperty({ type: RunErrorDoc, nullable: true }) error: RunErrorDoc | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'An undo’s: the run it takes back.' }) undoOf: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The undo that took this run back, or is doing so.' })
  undoneBy: string | null;
  @ApiProperty({
    ...NULLABLE_TIME,
    description:
      'Until when it can be undone (90 days: its lists are kept that long); null when it cannot be (not a succeeded import run, an undo, a preview).',
  })
  undoableUntil: string | null;
  @ApiProperty({ ...NULLABLE_TIME, description: 'When its lists were removed, 90 days on.' }) listsPurgedAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty(NULLABLE_TIME) startedAt: string | null;
  @ApiProperty(NULLABLE_TIME) finishedAt: string | null;
  @ApiPropertyOptional({ type: RunRowsDoc, description: 'A preview’s: the first rows of each of its lists.' }) rows?: RunRowsDoc;
}

export class RunPageDoc {
  @ApiProperty({ type: [RunDoc] }) items: RunDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class RejectedRowPageDoc {
  @ApiProperty({ type: [RejectedRowDoc] }) items: RejectedRowDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class RecordRowPageDoc {
  @ApiProperty({ type: [RecordRowDoc] }) items: RecordRowDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class ChangedRowPageDoc {
  @ApiProperty({ type: [ChangedRowDoc] }) items: ChangedRowDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class ConflictRowPageDoc {
  @ApiProperty({ type: [ConflictRowDoc] }) items: ConflictRowDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}
