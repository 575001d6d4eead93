import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { INSIGHTS_AREAS, STORE_PLANS } from '../../common/permissions.js';
import { FILTER_OPERATORS } from '../definitions/filters.js';
import { DIRECTIONS } from '../definitions/directions.js';
import { REPORT_NAMES } from '../definitions/reports.js';
import { ReportDefinitionDto } from './report-source.dto.js';

/** Figures by name: money in minor units, counts and durations (seconds) are integers; ratios are 0..1; periods are text. */
const FIGURES = {
  type: 'object' as const,
  additionalProperties: {
    oneOf: [
      { type: 'integer', description: 'Money (minor units, without tax), a count or a duration (seconds).' },
      { type: 'number', minimum: 0, maximum: 1, description: 'A ratio.' },
      { type: 'string', description: 'The period, or a date.' },
      { type: 'null', description: 'An average or ratio over nothing.' },
    ],
  },
};

export class ReportRangeDoc {
  @ApiProperty({ example: '2026-10-25' }) from: string;
  @ApiProperty({ example: '2026-11-23' }) to: string;
  @ApiProperty({ example: 'Asia/Riyadh' }) timezone: string;
  @ApiProperty({ enum: ['hour', 'day', 'week', 'month', 'quarter', 'year'] }) grain: string;
}

const DIRECTION_DOC = {
  enum: DIRECTIONS,
  description:
    'Whether a rise against the compared range is good news (`higher_is_better`), bad news (`lower_is_better`) or neither (`neutral`).',
};

export class ReportColumnDocDto {
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['dimension', 'measure'] }) kind: string;
  @ApiProperty({ enum: ['money', 'count', 'ratio', 'duration', 'text', 'date'] }) type: string;
  @ApiProperty() label_en: string;
  @ApiProperty() label_ar: string;
  @ApiPropertyOptional({ ...DIRECTION_DOC, description: `Measure columns only. ${DIRECTION_DOC.description}` }) direction?: string;
}

/** Every built-in report and the builder answer in this shape (contract section 8). */
export class ReportResponseDoc {
  @ApiProperty({ example: 'overview' }) report: string;
  @ApiProperty({ type: ReportRangeDoc }) range: ReportRangeDoc;
  @ApiProperty({ type: ReportRangeDoc, nullable: true }) compareRange: ReportRangeDoc | null;
  @ApiProperty({ example: 'SAR' }) currency: string;
  @ApiProperty({ type: [ReportColumnDocDto] }) columns: ReportColumnDocDto[];
  @ApiProperty({
    type: [String],
    example: ['product', 'variant', 'category', 'brand'],
    description:
      'The dimensions the report can be filtered by (`filter[]`, the builder’s `filters`), beside the filters it has: those every query of its figures can take. Any other is 400 validation_failed on that filter.',
  })
  filterable: string[];
  @ApiProperty({
    type: [String],
    example: ['net_sales', 'units_sold'],
    description: 'The measures the table can be sorted by (`sort`): none for a table whose order is fixed (cohorts, the funnel).',
  })
  sortable: string[];
  @ApiProperty({ ...FIGURES, description: 'Money in minor units without tax; ratios 0..1; durations in seconds.' })
  totals: Record<string, unknown>;
  @ApiProperty({ ...FIGURES, nullable: true }) compareTotals: Record<string, unknown> | null;
  @ApiProperty({
    type: 'array',
    items: FIGURES,
    description: 'One point per period (`period`: local `YYYY-MM-DD`, or `YYYY-MM-DDTHH:00`), zero-filled.',
  })
  series: Record<string, unknown>[];
  @ApiProperty({ type: 'array', items: FIGURES, nullable: true, description: 'The compare range’s points, aligned by position.' })
  compareSeries: Record<string, unknown>[] | null;
  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      properties: {
        labels: {
          type: 'object',
          additionalProperties: { type: 'object', properties: { en: { type: 'string' }, ar: { type: 'string' } }, required: ['en', 'ar'] },
        },
      },
      additionalProperties: true,
    },
    description:
      'Dimension values and measures; `labels` names the values of the row’s dimensions: `{ "product": { "en", "ar" } }`, and a value that needs words: ' +
      '`not_selling`’s `last_sold_on` is null for a product never sold in the store’s history (its `days_since_last_sale` null too, the longest unsold), labelled “Never sold”. ' +
      '`cohorts`’ rows are the whole triangle of the range (every cohort, every month since, up to the range’s end) unless `limit` pages them.',
  })
  rows: Record<string, unknown>[];
  @ApiPropertyOptional({ type: 'integer', description: 'Builder only: the rows of the answer (never more than 5,000).' }) rowCount?: number;
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
  @ApiProperty({ format: 'date-time', description: 'Everything recorded before this instant is in the figures.' }) dataAsOf: string;
}

export class ReferenceEntryDoc {
  @ApiProperty() name: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Whose view permission reads it; null for time grains.' }) area:
    string | null;
  @ApiProperty() type: string;
  @ApiProperty() label_en: string;
  @ApiProperty() label_ar: string;
  @ApiProperty() description_en: string;
  @ApiProperty() description_ar: string;
  @ApiPropertyOptional({ type: [String], description: 'Measures: the dimensions it can be split by.' }) dimensions?: string[];
  @ApiPropertyOptional({ type: [String], description: 'Dimensions: the measures it splits.' }) measures?: string[];
  @ApiPropertyOptional(DIRECTION_DOC) direction?: string;
  @ApiPropertyOptional({ description: 'Measures: false for columns of one report’s table only.' }) builder?: boolean;
  @ApiPropertyOptional({ type: [String] }) reports?: string[];
  @ApiPropertyOptional() filterable?: boolean;
  @ApiPropertyOptional({ enum: FILTER_OPERATORS, isArray: true }) operators?: string[];
}

export class ReferenceListDoc {
  @ApiProperty({ type: [ReferenceEntryDoc] }) items: ReferenceEntryDoc[];
}

export class ReportEntryDoc {
  @ApiProperty({ enum: REPORT_NAMES }) name: string;
  @ApiProperty({ enum: INSIGHTS_AREAS, description: 'Whose view permission (`insights.<area>.view`) reads it.' }) area: string;
  @ApiProperty({ enum: STORE_PLANS, description: 'The plan that first has its area.' }) plan: string;
}

export class ReportListDoc {
  @ApiProperty({ type: [ReportEntryDoc] }) items: ReportEntryDoc[];
}

export class DimensionValueDoc {
  @ApiProperty() value: string;
  @ApiProperty() label_en: string;
  @ApiProperty() label_ar: string;
}

export class DimensionValuesDoc {
  @ApiProperty({ type: [DimensionValueDoc] }) items: DimensionValueDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}

export class SourceFreshnessDoc {
  @ApiProperty({ enum: ['orders', 'refunds', 'searches', 'sessions'] }) name: string;
  @ApiProperty({ type: 'integer', description: 'Records in the figures.' }) rows: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'The newest record, in the figures or not yet.' })
  lastRecordAt: string | null;
}

export class StatusDoc {
  @ApiProperty({ format: 'date-time' }) dataAsOf: string;
  @ApiProperty({
    type: 'integer',
    description:
      "Seconds the figures are behind the records: what waits to be folded in, plus the replica's replay lag when they are read on a replica; " +
      '0 when nothing waits and they are read on the primary.',
  })
  lagSeconds: number;
  @ApiProperty({
    enum: ['primary', 'replica'],
    description:
      'Where the figures are read: a read replica (DATABASE_REPLICA_URL) while it answers and keeps within REPLICA_MAX_LAG_SECONDS, else the primary.',
  })
  source: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'How far the replica is behind the primary; null when read on the primary.',
  })
  replicaLagSeconds: number | null;
  @ApiProperty({
    description:
      'The figures are being rebuilt after a change of the time zone, of whether test orders count or of the grace before an order is late; ' +
      'until then some follow the previous settings.',
  })
  rebuilding: boolean;
  @ApiProperty() timezone: string;
  @ApiProperty() currency: string;
  @ApiProperty({ type: [SourceFreshnessDoc] }) sources: SourceFreshnessDoc[];
}

export class SavedReportDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({
    type: ReportDefinitionDto,
    description: '`{ "report", "params" }` (a built-in report) or `{ "builder": <builder body> }`.',
  })
  definition: Record<string, unknown>;
  @ApiProperty({ format: 'uuid', description: 'The staff member who saved it.' }) createdBy: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class SavedReportPageDoc {
  @ApiProperty({ type: [SavedReportDoc] }) items: SavedReportDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}
