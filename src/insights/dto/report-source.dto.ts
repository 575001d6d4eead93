import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsObject, IsString, Max, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';
import { MAX_PAGE_SIZE } from '../../common/pagination/list-query.dto.js';
import { NotWith, OptionalField, TextField } from '../../common/validation/fields.js';
import { TIME_GRAINS, type TimeGrain } from '../definitions/dimensions.js';
import { REPORT_NAMES, type ReportName } from '../definitions/reports.js';
import { BuilderRunDto, QueryRangeDto } from './builder-run.dto.js';

/** A built-in report's parameters in a body: its query string's, `filter[]` as `filters`, without a cursor. */
export class ReportParamsDto extends QueryRangeDto {
  @ApiPropertyOptional({ enum: TIME_GRAINS })
  @OptionalField()
  @IsIn(TIME_GRAINS)
  grain?: TimeGrain;

  @ApiPropertyOptional({ type: [String], example: ['payment_method:card'], description: '`dimension:value`, as `filter[]`.' })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  filters?: string[];

  @ApiPropertyOptional({ example: '-net_sales' })
  @OptionalField()
  @IsString()
  @MaxLength(100)
  sort?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Rows of the table per page.' })
  @OptionalField()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;
}

/** A report definition as stored and run: one of the two shapes `ReportDefinitionDto` accepts. */
export type ReportDefinition = { report: ReportName; params?: ReportParamsDto } | { builder: BuilderRunDto };

/**
 * What a saved report, a schedule or an export runs (contract section 8): a built-in `report` with its
 * `params`, or a `builder` query; exactly one of the two.
 */
export class ReportDefinitionDto {
  @ApiPropertyOptional({ enum: REPORT_NAMES, description: 'A built-in report; or `builder`, not both.' })
  @ValidateIf((definition: ReportDefinitionDto) => definition.report !== undefined || definition.builder === undefined)
  @IsIn(REPORT_NAMES)
  @NotWith('builder')
  report?: ReportName;

  @ApiPropertyOptional({ type: ReportParamsDto, description: 'The report’s parameters (with `report` only).' })
  @OptionalField()
  @NotWith('builder')
  @IsObject()
  @ValidateNested()
  @Type(() => ReportParamsDto)
  params?: ReportParamsDto;

  @ApiPropertyOptional({ type: BuilderRunDto, description: 'A builder query; or `report`, not both.' })
  @ValidateIf((definition: ReportDefinitionDto) => definition.builder !== undefined || definition.report === undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => BuilderRunDto)
  builder?: BuilderRunDto;
}

export class CreateSavedReportDto {
  @ApiProperty({ example: 'Monthly sales by category', maxLength: 120 })
  @TextField(120, 1)
  name: string;

  @ApiProperty({ type: ReportDefinitionDto })
  @IsObject()
  @ValidateNested()
  @Type(() => ReportDefinitionDto)
  definition: ReportDefinitionDto;
}

export class UpdateSavedReportDto {
  @ApiPropertyOptional({ maxLength: 120 })
  @OptionalField()
  @TextField(120, 1)
  name?: string;

  @ApiPropertyOptional({ type: ReportDefinitionDto, description: 'Replaces the whole definition.' })
  @OptionalField()
  @IsObject()
  @ValidateNested()
  @Type(() => ReportDefinitionDto)
  definition?: ReportDefinitionDto;
}

/** The definition a valid `ReportDefinitionDto` gives: the one shape it holds, nothing else. */
export function reportDefinition(dto: ReportDefinitionDto): ReportDefinition {
  if (dto.builder) return { builder: dto.builder };
  return dto.params ? { report: dto.report!, params: dto.params } : { report: dto.report! };
}
