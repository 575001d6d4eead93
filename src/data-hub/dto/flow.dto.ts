import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { FORMULA_SAFETY, type FormulaSafety } from '../../common/formula-safety.js';
import { EmailField, NullableField, OptionalField, TextField } from '../../common/validation/fields.js';
import { CronField, TimeZoneField } from '../../common/validation/schedule-fields.js';
import { TEMPLATE_SHAPE } from '../connectors/file-template.js';
import { FLOW_MODES, type FlowMode } from '../entities/flow.entity.js';
import { DIRECTIONS, type Direction } from '../structures/structures.js';
import { immutableDoc, SERVER_OWNED_OBJECT, ServerOwned } from './read-back.js';
import { FILE_ENCODINGS, SOURCE_FORMATS, type FileEncoding, type SourceFormat } from '../../infra/tabular/formats.js';

export class FlowScheduleDto {
  @ApiProperty({ example: '0 2 * * *', description: 'Five fields: minute hour day-of-month month day-of-week.' })
  @CronField()
  cron: string;

  @ApiProperty({ example: 'Asia/Riyadh' })
  @TimeZoneField()
  timezone: string;
}

export class ShrinkGuardDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    default: 10,
    description: 'Refuse a replace run that would deactivate more than this percentage of the active records.',
  })
  @OptionalField()
  @IsInt()
  @Min(0)
  @Max(100)
  maxDeactivatePercent?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 500, description: '…or more than this many.' })
  @OptionalField()
  @IsInt()
  @Min(0)
  @Max(100_000_000)
  maxDeactivateCount?: number;
}

const TEMPLATE_DOC = {
  example: 'stock-{yyyy}{MM}{dd}.csv',
  description:
    'Imports read the newest unprocessed file matching it (`*` matches any characters); exports name their file by it, its tokens filled in with the run’s start in the flow’s schedule’s time zone, else the store’s (no `*`). An import from a `database_read` connection reads its query’s rows instead, afresh at every run: it takes a template of this shape (`query.csv`, say) and ignores it, as it ignores `format`, `encoding` and `missingAfterMinutes`, and its runs have `file: null`.',
};

const FORMAT_DOC = {
  enum: SOURCE_FORMATS,
  description: 'The file’s format. Ignored by imports from a `database_read` connection (see `fileTemplate`).',
};

function FileTemplateField() {
  return applyDecorators(
    IsString(),
    MaxLength(200),
    Matches(TEMPLATE_SHAPE, { message: 'letters, digits, . _ - *, and the tokens {yyyy} {yy} {MM} {dd} {HH} {mm} {ss}' }),
  );
}

/** What a flow is besides its name, source and file; on a PUT every member may be left out (it keeps its value). */
class FlowFieldsDto {
  @ApiPropertyOptional({ enum: FILE_ENCODINGS, default: 'utf-8' })
  @OptionalField()
  @IsIn(FILE_ENCODINGS)
  encoding?: FileEncoding;
  @ApiPropertyOptional({
    enum: FLOW_MODES,
    default: 'upsert',
    description: '`replace` deactivates what the file no longer holds (imports of structures that offer it).',
  })
  @OptionalField()
  @IsIn(FLOW_MODES)
  mode?: FlowMode;
  @ApiPropertyOptional({
    enum: FORMULA_SAFETY,
    default: 'escape',
    description:
      "Exports to CSV and XLSX: `escape` writes text that begins with `=`, `+`, `-`, `@`, a tab, a carriage return or a line feed with a leading apostrophe (`'=1+1`), so that a spreadsheet shows it and never runs it (OWASP), for files a person opens; `raw` writes every value as it is, for machine feeds. Text is escaped whatever it reads as (`-12.5` as text too); numbers, booleans and empty cells never are. JSON lines are never escaped. Imports take the setting and ignore it.",
  })
  @OptionalField()
  @IsIn(FORMULA_SAFETY)
  formulaSafety?: FormulaSafety;
  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    required: ['cron', 'timezone'],
    properties: { cron: { type: 'string', example: '0 2 * * *' }, timezone: { type: 'string', example: 'Asia/Riyadh' } },
    description: 'Five cron fields in an IANA time zone; null: no schedule.',
  })
  @NullableField()
  @ValidateNested()
  @Type(() => FlowScheduleDto)
  schedule?: FlowScheduleDto | null;
  @ApiPropertyOptional({ default: false, description: 'A paused flow skips its schedule: no runs, no alerts.' })
  @OptionalField()
  @IsBoolean()
  paused?: boolean;
  @ApiPropertyOptional({ default: false, description: 'A muted flow runs but sends no alerts.' })
  @OptionalField()
  @IsBoolean()
  muted?: boolean;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 10_080,
    default: 60,
    description: 'A scheduled import that finds no new file this long after its due time is recorded as missing.',
  })
  @OptionalField()
  @IsInt()
  @Min(1)
  @Max(10_080)
  missingAfterMinutes?: number;
  @ApiPropertyOptional({ type: [String] })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(20)
  @EmailField({ each: true })
  alertRecipients?: string[];
  @ApiPropertyOptional({ type: ShrinkGuardDto })
  @OptionalField()
  @ValidateNested()
  @Type(() => ShrinkGuardDto)
  shrinkGuard?: ShrinkGuardDto;
}

export class CreateFlowDto extends FlowFieldsDto {
  @ApiProperty({ maxLength: 120 }) @TextField(120, 1) name: string;
  @ApiProperty() @IsUUID() connectionId: string;
  @ApiProperty() @IsUUID() mappingId: string;
  @ApiProperty({ enum: DIRECTIONS }) @IsIn(DIRECTIONS) direction: Direction;
  @ApiProperty(FORMAT_DOC) @IsIn(SOURCE_FORMATS) format: SourceFormat;
  @ApiProperty(TEMPLATE_DOC) @FileTemplateField() fileTemplate: string;
}

/** What is given changes; or the flow as GET returned it, changed. */
export class UpdateFlowDto extends FlowFieldsDto {
  @ApiPropertyOptional({ maxLength: 120 }) @OptionalField() @TextField(120, 1) name?: string;
  @ApiPropertyOptional() @OptionalField() @IsUUID() connectionId?: string;
  @ApiPropertyOptional() @OptionalField() @IsUUID() mappingId?: string;
  @ApiPropertyOptional(FORMAT_DOC) @OptionalField() @IsIn(SOURCE_FORMATS) format?: SourceFormat;
  @ApiPropertyOptional(TEMPLATE_DOC) @OptionalField() @FileTemplateField() fileTemplate?: string;
  @ApiPropertyOptional({ enum: DIRECTIONS, description: immutableDoc('create a new flow, with a mapping of the other direction.') })
  @OptionalField()
  @IsIn(DIRECTIONS)
  direction?: Direction;
  @ServerOwned() id?: undefined;
  @ServerOwned({ type: 'string', nullable: true }) nextRunAt?: undefined;
  @ServerOwned(SERVER_OWNED_OBJECT) lastRun?: undefined;
  @ServerOwned() createdAt?: undefined;
  @ServerOwned() updatedAt?: undefined;
}
