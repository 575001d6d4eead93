import { defineEntity, p } from '@mikro-orm/core';
import { StaffMember } from '../../auth/entities/staff-member.entity.js';
import { LOCALES } from '../../common/locale.js';
import type { InsightsArea } from '../../common/permissions.js';
import { createdAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import type { ReportDefinition } from '../dto/report-source.dto.js';

/** The formats a report's table is written in: exports, deliveries. */
export const FILE_FORMATS = ['csv', 'xlsx'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

export const EXPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** A report's whole table written as a file in the background (contract section 8), kept until it expires. */
const InsightsExportSchema = defineEntity({
  name: 'InsightsExport',
  tableName: 'insights_exports',
  indexes: [
    { properties: ['store', 'createdAt'] },
    {
      name: 'insights_exports_expires_at_index',
      expression: 'create index insights_exports_expires_at_index on insights_exports (expires_at) where file_deleted_at is null',
    },
  ],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    requestedBy: () => p.manyToOne(StaffMember).mapToPk().fieldName('requested_by'),
    /** What runs: a saved report's definition is copied when the export is asked for. */
    definition: p.json<ReportDefinition>(),
    savedReportId: p.uuid().nullable(),
    /** The Insights areas the definition reads: who may see the export. */
    areas: p.array<InsightsArea>().columnType('text[]'),
    format: p.enum(FILE_FORMATS),
    /** The language of the header row. */
    language: p.enum(LOCALES),
    status: p.enum(EXPORT_STATUSES).default('queued'),
    attempts: p.integer().default(0),
    rows: p.bigint().defaultRaw('0'),
    totalRows: p.bigint().nullable(),
    fileName: p.text().nullable(),
    fileKey: p.text().nullable(),
    bytes: p.bigint().nullable(),
    /** Why it failed: a code and a message in both languages. */
    error: p.json<{ code: string; message_en: string; message_ar: string }>().nullable(),
    createdAt: createdAt(),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    fileDeletedAt: p.datetime().nullable(),
  },
});

export class InsightsExport extends InsightsExportSchema.class {}
InsightsExportSchema.setClass(InsightsExport);
