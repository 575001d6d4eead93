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
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { EmailField, NullableField, OptionalField, TextField } from '../../common/validation/fields.js';
import { SOURCE_FORMATS, type SourceFormat } from '../connectors/file-fields.js';
import { TEMPLATE_SHAPE } from '../connectors/file-template.js';
import { FILE_ENCODINGS, FLOW_MODES, type FlowMode } from '../entities/flow.entity.js';
import { cronProblem, isTimezone } from '../flows/flow-schedule.js';
import { DIRECTIONS, type Direction } from '../structures/structures.js';

export class FlowScheduleDto {
  @ApiProperty({ example: '0 2 * * *', description: 'Five fields: minute hour day-of-month month day-of-week.' })
  @IsString()
  @MaxLength(120)
  @ValidateBy({
    name: 'cron',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && cronProblem(value) === null,
      defaultMessage: (args) => `not a cron expression: ${cronProblem(String(args?.value))}`,
    },
  })
  cron: string;

  @ApiProperty({ example: 'Asia/Riyadh' })
  @IsString()
  @MaxLength(64)
  @ValidateBy({
    name: 'timezone',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isTimezone(value),
      defaultMessage: () => 'not an IANA time zone',
    },
  })
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
    'Imports read the newest unprocessed file matching it (`*` matches any characters); exports name their file by it, its tokens filled in with the run’s start in the flow’s schedule’s time zone, else the store’s (no `*`).',
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
  encoding?: (typeof FILE_ENCODINGS)[number];
  @ApiPropertyOptional({
    enum: FLOW_MODES,
    default: 'upsert',
    description: '`replace` deactivates what the file no longer holds (imports of structures that offer it).',
  })
  @OptionalField()
  @IsIn(FLOW_MODES)
  mode?: FlowMode;
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
  @ApiProperty({ enum: SOURCE_FORMATS }) @IsIn(SOURCE_FORMATS) format: SourceFormat;
  @ApiProperty(TEMPLATE_DOC) @FileTemplateField() fileTemplate: string;
}

export class UpdateFlowDto extends FlowFieldsDto {
  @ApiPropertyOptional({ maxLength: 120 }) @OptionalField() @TextField(120, 1) name?: string;
  @ApiPropertyOptional() @OptionalField() @IsUUID() connectionId?: string;
  @ApiPropertyOptional() @OptionalField() @IsUUID() mappingId?: string;
  @ApiPropertyOptional({ enum: SOURCE_FORMATS }) @OptionalField() @IsIn(SOURCE_FORMATS) format?: SourceFormat;
  @ApiPropertyOptional(TEMPLATE_DOC) @OptionalField() @FileTemplateField() fileTemplate?: string;
}
