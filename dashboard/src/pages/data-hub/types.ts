/** The data hub's API shapes the dashboard reads (contract section 9). */
import type { FieldError } from '../../components/fields.js';

export type ConnectionKind = 'sftp' | 'object_storage' | 'database_read' | 'platform_drop';
export const CONNECTION_KINDS: readonly ConnectionKind[] = ['platform_drop', 'sftp', 'object_storage', 'database_read'];

export interface Bilingual {
  message_en?: string;
  message_ar?: string;
}

export interface Connection {
  id: string;
  name: string;
  kind: ConnectionKind;
  config: Record<string, unknown>;
  credentials: { set: boolean; fields: string[] };
  status: 'untested' | 'tested' | 'failed' | 'active';
  lastTest: ({ at: string; ok: boolean; code?: string } & Bilingual) | null;
  hostKey: { algorithm: string; fingerprint: string; pinnedAt: string } | null;
}

/** What the merchant reads for a structure, a field, a transform or an arg, beside its identifier (`name`). */
export interface Labelled {
  label_en: string;
  label_ar: string;
}

export interface StructureField extends Labelled {
  name: string;
  type: string;
  required: boolean;
  description_en: string;
  description_ar: string;
}
export interface Structure extends Labelled {
  name: string;
  directions: ('import' | 'export')[];
  key: string;
  fields: StructureField[];
}

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  default?: unknown;
}
export interface Transform extends Labelled {
  name: string;
  args: JsonSchema;
  /** The label of each arg, by its name in `args.properties`. */
  argLabels: Record<string, Labelled>;
  description_en: string;
  description_ar: string;
}

export interface TransformStep {
  name: string;
  args?: Record<string, unknown>;
}
export interface MappingField {
  target: string;
  source?: string;
  sources?: string[];
  transforms?: TransformStep[];
}
export interface Mapping {
  id: string;
  name: string;
  structure: string;
  direction: 'import' | 'export';
  fields: MappingField[];
  version: number;
  updatedAt: string;
}

export type FormulaSafety = 'escape' | 'raw';
export const FORMULA_SAFETY: readonly FormulaSafety[] = ['escape', 'raw'];

export interface Flow {
  id: string;
  name: string;
  connectionId: string;
  mappingId: string;
  direction: 'import' | 'export';
  format: 'csv' | 'jsonl' | 'xlsx';
  encoding?: 'utf-8' | 'windows-1256';
  fileTemplate: string;
  mode: 'upsert' | 'replace';
  /** Exports' CSV and XLSX cells: text that would be a formula behind an apostrophe (`escape`) or as it is (`raw`). */
  formulaSafety: FormulaSafety;
  schedule: { cron: string; timezone: string } | null;
  paused: boolean;
  muted: boolean;
  missingAfterMinutes: number;
  alertRecipients: string[];
  shrinkGuard: { maxDeactivatePercent: number; maxDeactivateCount: number };
  nextRunAt: string | null;
  lastRun: { id: string; status: string; finishedAt?: string | null; startedAt?: string | null } | null;
}

export const COUNTS = ['read', 'created', 'changed', 'unchanged', 'deactivated', 'rejected', 'sent'] as const;
export type Count = (typeof COUNTS)[number];
/** The counts a run of each direction has: an import's records, an export's rows sent. */
export const RUN_COUNTS: Record<Flow['direction'], readonly Count[]> = {
  import: ['read', 'created', 'changed', 'unchanged', 'deactivated', 'rejected'],
  export: ['read', 'rejected', 'sent'],
};

export interface RejectedRow {
  line: number | null;
  key: string | null;
  values: unknown;
  errors: FieldError[];
}
export interface RecordRow {
  key: string | null;
  recordId: string | null;
}

export interface Run {
  id: string;
  flowId: string;
  trigger: 'manual' | 'schedule';
  preview: boolean;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'refused' | 'missing';
  counts: Partial<Record<Count, number>> | null;
  file: { name: string; bytes: number; sha256: string | null } | null;
  firstRows?: number | null;
  mappingVersion: number | null;
  /** The setting an export wrote its file with; null for an import. */
  formulaSafety: FormulaSafety | null;
  refusal:
    | ({
        code: string;
        wouldDeactivate: number;
        activeRecords: number;
        percent: number;
        threshold: { maxDeactivatePercent: number; maxDeactivateCount: number };
      } & Bilingual)
    | null;
  override?: { maxDeactivatePercent: number; reason: string } | null;
  error: ({ code: string } & Bilingual) | null;
  createdAt?: string;
  startedAt: string | null;
  finishedAt: string | null;
  rows?: { rejected: RejectedRow[]; created: RecordRow[]; deactivated: RecordRow[] };
}

/** A file in a platform drop (`GET /connections/{id}/files`). */
export interface DropFile {
  name: string;
  bytes: number;
  modifiedAt: string;
}
