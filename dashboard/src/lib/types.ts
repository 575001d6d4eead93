/** The API's shapes the dashboard reads (contract sections 7 and 8), by the names the pages use. */
import type { components } from './api-schema.js';

/** A shape the API publishes, by its name in its OpenAPI document. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export type Me = Schema<'MeResponse'>;
export type Status = Schema<'StatusDoc'>;
export type ReportResponse = Schema<'ReportResponseDoc'>;
export type Column = Schema<'ReportColumnDocDto'>;
export type Row = ReportResponse['rows'][number];
/** A measure's: whether a rise is good news, bad news or neither. */
export type Direction = NonNullable<Column['direction']>;

/** Insights catalogue, builder, saved reports, exports, schedules and settings (contract section 8). */
export type ReferenceItem = Schema<'ReferenceEntryDoc'>;
export type DimensionValue = Schema<'DimensionValueDoc'>;
export type BuilderQuery = Schema<'BuilderRunDto'>;
export type BuilderFilter = Schema<'BuilderFilterDto'>;
export type SavedReport = Schema<'SavedReportDoc'>;
export type ReportParams = Schema<'ReportParamsDto'>;
export type InsightsExport = Schema<'ExportDoc'>;
export type ExportSource = Schema<'ExportSourceDto'>;
export type Schedule = Schema<'ScheduleDoc'>;
export type Cadence = Schedule['cadence'];
export type Delivery = Schema<'DeliveryDoc'>;
export type InsightsSettings = Schema<'InsightsSettingsDoc'>;
