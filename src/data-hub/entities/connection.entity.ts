import { defineEntity, p } from '@mikro-orm/core';
import { StaffMember } from '../../auth/entities/staff-member.entity.js';
import { createdAt, updatedAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';

export const CONNECTION_KINDS = ['sftp', 'object_storage', 'database_read', 'platform_drop'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

export const CONNECTION_STATUSES = ['untested', 'tested', 'failed', 'active'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** The outcome of the latest test, as the dashboard shows it. */
export interface ConnectionTestOutcome {
  at: string;
  ok: boolean;
  code?: string;
  message_en?: string;
  message_ar?: string;
}

/** An SFTP server's host key, pinned at the first successful test (trust on first use). */
export interface PinnedHostKey {
  algorithm: string;
  /** `SHA256:` and the unpadded base64 of the key's SHA-256, as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  pinnedAt: string;
}

/** A place a store's data comes from or goes to (contract section 9). */
const ConnectionSchema = defineEntity({
  name: 'Connection',
  tableName: 'data_hub_connections',
  indexes: [{ properties: ['store', 'createdAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    name: p.string().length(120),
    kind: p.enum(CONNECTION_KINDS),
    config: p.json<Record<string, unknown>>(),
    /** The credentials as JSON, sealed under SECRET_KEY and bound to this connection's id. */
    credentialsSealed: p.text().nullable(),
    /** Which credential fields are set (never their values). */
    credentialFields: p.array<string>().columnType('text[]').defaultRaw(`'{}'`),
    status: p.enum(CONNECTION_STATUSES).default('untested'),
    /** Changes of config, credentials or host key pin: a test's outcome counts for the revision it tested. */
    revision: p.integer().default(1),
    lastTest: p.json<ConnectionTestOutcome>().nullable(),
    hostKey: p.json<PinnedHostKey>().nullable(),
    createdBy: () => p.manyToOne(StaffMember).mapToPk().fieldName('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class Connection extends ConnectionSchema.class {}
ConnectionSchema.setClass(Connection);
