import type { ConnectionTarget, Connector } from '../connectors/connector.js';
import type { MappingField } from '../entities/mapping.entity.js';
import type { Structure } from '../structures/structures.js';
import type { JobAttempt } from '../../infra/jobs/tracked-job.js';
import type { FileEncoding, SourceFormat } from '../../infra/tabular/formats.js';

/** What an import or an export run is given: the flow's settings as the run's mapping version saw them, and its connection. */
export interface RunRequest {
  /** The run and the attempt at it this is: whatever it writes is this attempt's, and nothing once a later one started. */
  attempt: JobAttempt;
  storeId: string;
  structure: Structure;
  fields: readonly MappingField[];
  format: SourceFormat;
  encoding: FileEncoding;
  fileTemplate: string;
  /** A file named by the request: an import reads it instead of the newest matching the template, an export writes it. */
  file?: string;
  connector: Connector;
  target: ConnectionTarget;
  preview: boolean;
  /** A preview of the first rows only (an import's file's; an export's first records in key order). */
  firstRows?: number;
}
