import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { NotWith, OptionalField, TextField } from '../../common/validation/fields.js';
import { DIRECTIONS, STRUCTURES, type Direction } from '../structures/structures.js';
import { immutableDoc, ServerOwned } from './read-back.js';

const STRUCTURE_NAMES = STRUCTURES.map((structure) => structure.name);

export class TransformStepDto {
  @ApiProperty({ description: 'A transform of GET /transforms.' }) @IsString() @MinLength(1) @MaxLength(60) name: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'As the transform’s JSON schema says.' })
  @OptionalField()
  @IsObject()
  args?: Record<string, unknown>;
}

export class MappingFieldDto {
  @ApiProperty({ description: 'Import: a field of the structure. Export: the column written.' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  target: string;

  @ApiPropertyOptional({ description: 'Import: a field (column) of the source. Export: a field of the structure. Or `sources`, not both.' })
  @ValidateIf((field: MappingFieldDto) => field.sources === undefined || field.source !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @NotWith('sources')
  source?: string;

  @ApiPropertyOptional({ type: [String], description: 'Several fields, given to the transforms as a list (concat joins them).' })
  @OptionalField()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(200, { each: true })
  sources?: string[];

  @ApiPropertyOptional({ type: [TransformStepDto], description: 'Applied in order.' })
  @OptionalField()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => TransformStepDto)
  transforms?: TransformStepDto[];

  @ApiPropertyOptional({
    description:
      'Import only, for a field the structure marks `clearable`: an empty cell clears the record’s value (e.g. the price before a discount). Otherwise an empty cell leaves it as it is.',
  })
  @OptionalField()
  @IsBoolean()
  clearWhenEmpty?: boolean;
}

class MappingFieldsDto {
  @ApiProperty({ type: [MappingFieldDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @ValidateNested({ each: true })
  @Type(() => MappingFieldDto)
  fields: MappingFieldDto[];
}

export class CreateMappingDto extends MappingFieldsDto {
  @ApiProperty({ maxLength: 120 }) @TextField(120, 1) name: string;
  @ApiProperty({ enum: STRUCTURE_NAMES })
  @IsIn(STRUCTURE_NAMES)
  structure: string;
  @ApiProperty({ enum: DIRECTIONS }) @IsIn(DIRECTIONS) direction: Direction;
}

/** A PUT is a new version: the whole list of fields, and the name if it changes; or the mapping as GET returned it, changed. */
export class UpdateMappingDto extends MappingFieldsDto {
  @ApiPropertyOptional({ maxLength: 120 }) @OptionalField() @TextField(120, 1) name?: string;
  @ApiPropertyOptional({ enum: STRUCTURE_NAMES, description: immutableDoc('create a new mapping for another structure.') })
  @OptionalField()
  @IsIn(STRUCTURE_NAMES)
  structure?: string;
  @ApiPropertyOptional({ enum: DIRECTIONS, description: immutableDoc('create a new mapping for the other direction.') })
  @OptionalField()
  @IsIn(DIRECTIONS)
  direction?: Direction;
  @ServerOwned() id?: undefined;
  @ServerOwned({ type: 'integer', description: 'As GET returns it; ignored: every PUT writes the next version.' }) version?: undefined;
  @ServerOwned() createdAt?: undefined;
  @ServerOwned() updatedAt?: undefined;
}

export class RestoreMappingDto {
  @ApiProperty({ type: 'integer', minimum: 1 }) @IsInt() @Min(1) version: number;
}
