import { defineEntity, p } from '@mikro-orm/core';
import { StaffMember } from '../../auth/entities/staff-member.entity.js';
import type { InsightsArea } from '../../common/permissions.js';
import { createdAt, updatedAt } from '../../infra/database/timestamps.js';
import { Store } from '../../stores/entities/store.entity.js';
import type { ReportDefinition } from '../dto/report-source.dto.js';

/** A report saved under a name: a built-in report with its parameters, or a builder query (contract section 8). */
const SavedReportSchema = defineEntity({
  name: 'SavedReport',
  tableName: 'insights_saved_reports',
  indexes: [{ properties: ['store', 'createdAt'] }],
  properties: {
    id: p.uuid().primary().defaultRaw('gen_random_uuid()'),
    store: () => p.manyToOne(Store).mapToPk(),
    name: p.string().length(120),
    definition: p.json<ReportDefinition>(),
    /** The Insights areas the definition reads, as saved: a list shows a staff member those they may view. */
    areas: p.array<InsightsArea>().columnType('text[]'),
    createdBy: () => p.manyToOne(StaffMember).mapToPk().fieldName('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});

export class SavedReport extends SavedReportSchema.class {}
SavedReportSchema.setClass(SavedReport);
