import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsUUID, ValidateIf, ValidateNested } from 'class-validator';
import { NotWith, OptionalField } from '../../common/validation/fields.js';
import { REPORT_NAMES, type ReportName } from '../definitions/reports.js';
import { EXPORT_STATUSES } from '../entities/insights-export.entity.js';
import { FILE_FORMATS, type FileFormat } from '../entities/insights-export.entity.js';
import { BuilderRunDto } from './builder-run.dto.js';
import { ReportDefinitionDto, ReportParamsDto } from './report-source.dto.js';

const neither = (source: ExportSourceDto) => source.builder === undefined && source.savedReportId === undefined;

/** What an export writes: a built-in `report` with its `params`, a `builder` query, or a saved report; exactly one. */
export class ExportSourceDto {
  @ApiPropertyOptional({ enum: REPORT_NAMES, description: 'A built-in report; or `builder`, or `savedReportId`.' })
  @ValidateIf((source: ExportSourceDto) => source.report !== undefined || neither(source))
  @IsIn(REPORT_NAMES)
  @NotWith('builder')
  @NotWith('savedReportId')
  report?: ReportName;

  @ApiPropertyOptional({
    type: ReportParamsDto,
    description: 'The report’s parameters (with `report` only); `limit` is ignored: every row is written.',
  })
  @OptionalField()
  @NotWith('builder')
  @NotWith('savedReportId')
  @IsObject()
  @ValidateNested()
  @Type(() => ReportParamsDto)
  params?: ReportParamsDto;

  @ApiPropertyOptional({
    type: BuilderRunDto,
    description: 'A builder query, as POST /builder/run takes it (its over_row_limit suggestion gives it as is).',
  })
  @OptionalField()
  @NotWith('savedReportId')
  @IsObject()
  @ValidateNested()
  @Type(() => BuilderRunDto)
  builder?: BuilderRunDto;

  @ApiPropertyOptional({ format: 'uuid', description: 'A saved report, run as it is defined now.' })
  @OptionalField()
  @IsUUID()
  savedReportId?: string;
}

export class CreateExportDto {
  @ApiProperty({ type: ExportSourceDto })
  @IsObject()
  @ValidateNested()
  @Type(() => ExportSourceDto)
  source: ExportSourceDto;

  @ApiProperty({ enum: FILE_FORMATS, description: 'CSV (UTF-8 with a byte order mark) on every plan; XLSX from the growth plan.' })
  @IsIn(FILE_FORMATS)
  format: FileFormat;
}

export class ExportProgressDoc {
  @ApiProperty({ type: 'integer', description: 'Rows written so far.' }) rows: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Rows the file will hold, once counted.' }) totalRows: number | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, maximum: 100 }) percent: number | null;
}

export class ExportFileDoc {
  @ApiProperty({ example: 'products_2026-10-26_2026-11-24.xlsx' }) name: string;
  @ApiProperty({ type: 'integer' }) bytes: number;
  @ApiProperty({ example: 'text/csv; charset=utf-8' }) contentType: string;
  @ApiProperty({ format: 'date-time', description: 'The file is deleted then (7 days after it was made).' }) expiresAt: string;
  @ApiProperty({ description: 'Whether the file was deleted on expiry: GET /file then answers 410 export_expired.' }) expired: boolean;
}

export class ExportErrorDoc {
  @ApiProperty() code: string;
  @ApiProperty() message_en: string;
  @ApiProperty() message_ar: string;
}

export class ExportDoc {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: EXPORT_STATUSES }) status: string;
  @ApiProperty({ enum: FILE_FORMATS }) format: string;
  @ApiProperty({
    type: ReportDefinitionDto,
    description: 'What it writes: a report with its params, or a builder query (a saved report’s, as it was asked for).',
  })
  definition: Record<string, unknown>;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) savedReportId: string | null;
  @ApiProperty({ enum: ['en', 'ar'], description: 'The language of the header row: the caller’s (Accept-Language).' }) language: string;
  @ApiProperty({ type: ExportProgressDoc }) progress: ExportProgressDoc;
  @ApiProperty({ type: ExportFileDoc, nullable: true }) file: ExportFileDoc | null;
  @ApiProperty({ type: ExportErrorDoc, nullable: true }) error: ExportErrorDoc | null;
  @ApiProperty({ type: 'integer', description: 'Runs so far: an export interrupted by a stopped instance runs again.' }) attempts: number;
  @ApiProperty({ format: 'uuid' }) requestedBy: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) startedAt: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) finishedAt: string | null;
}

export class ExportPageDoc {
  @ApiProperty({ type: [ExportDoc] }) items: ExportDoc[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor: string | null;
}
