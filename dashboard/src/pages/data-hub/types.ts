/** The data hub's API shapes the dashboard reads (contract section 9), by the names the pages use. */
import type { Schema } from '../../lib/types.js';

export type ConnectorKind = Schema<'ConnectorKindDoc'>;
export type Connection = Schema<'ConnectionDoc'>;
export type ConnectionKind = Connection['kind'];
export type DropFile = Schema<'DropFileDoc'>;

/** What the merchant reads for a structure, a field, a transform or an arg, beside its identifier (`name`). */
export type Structure = Schema<'StructureDoc'>;
export type Transform = Schema<'TransformDoc'>;
export type Labelled = Transform['argLabels'][string];
export type JsonSchema = Schema<'JsonSchemaDoc'>;

export type Mapping = Schema<'MappingDoc'>;
export type MappingField = Schema<'MappingFieldDto'>;
export type TransformStep = Schema<'TransformStepDto'>;
export type MappingVersion = Schema<'MappingVersionDoc'>;

export type Flow = Schema<'FlowDoc'>;
export type FormulaSafety = Flow['formulaSafety'];
/** The settings a flow's form offers, each of the API's once. */
export const FORMULA_SAFETY = Object.keys({ escape: true, raw: true } satisfies Record<FormulaSafety, true>) as FormulaSafety[];

export type Run = Schema<'RunDoc'>;
export type Count = keyof Schema<'RunCountsDoc'>;
export type RejectedRow = Schema<'RejectedRowDoc'>;
export type RecordRow = Schema<'RecordRowDoc'>;
export type ChangedRow = Schema<'ChangedRowDoc'>;
export type ConflictRow = Schema<'ConflictRowDoc'>;

/** The counts a run of each direction shows, in this order: an import's records, an export's rows sent. */
export const RUN_COUNTS: Record<Flow['direction'], readonly Count[]> = {
  import: ['read', 'created', 'changed', 'unchanged', 'deactivated', 'rejected'],
  export: ['read', 'rejected', 'sent'],
};

/**
 * The counts an undo shows, in this order: the records of the run's lists, those restored (a field set back,
 * or a deactivated record made active again), those the run created and the undo deactivates, those left
 * entirely as they are, and the fields left as they are because they changed since the run.
 */
export const UNDO_COUNTS = ['read', 'changed', 'deactivated', 'unchanged', 'conflicts'] as const satisfies readonly Count[];
