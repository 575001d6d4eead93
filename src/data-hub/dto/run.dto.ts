import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { OnlyWith, OptionalField, TextField } from '../../common/validation/fields.js';
import { FILE_NAME_PATTERN } from '../connectors/file-template.js';

export class ShrinkGuardOverrideDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 100, description: 'The threshold for this run alone.' })
  @IsInt()
  @Min(0)
  @Max(100)
  maxDeactivatePercent: number;

  @ApiPropertyOptional({ maxLength: 500, description: 'Why: recorded with the run, with who asked.' })
  @TextField(500, 1)
  reason: string;
}

export class StartRunDto {
  @ApiPropertyOptional({
    default: false,
    description: 'true: compute the run and answer it (200), writing nothing; false: queue it (202).',
  })
  @OptionalField()
  @IsBoolean()
  preview?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 10_000,
    description:
      'A preview of the file’s first rows only, answered at once: their counts and lists. What `replace` would deactivate is not judged from part of a file.',
  })
  @OptionalField()
  @IsInt()
  @Min(1)
  @Max(10_000)
  @OnlyWith('preview', true)
  firstRows?: number;

  @ApiPropertyOptional({
    description:
      'A file at the source to run on, instead of the newest matching the template. Not for a flow reading a `database_read` query (400, `not_a_file_source`).',
  })
  @OptionalField()
  @IsString()
  @Matches(FILE_NAME_PATTERN)
  file?: string;

  @ApiPropertyOptional({ type: ShrinkGuardOverrideDto, description: 'Lifts the shrink guard for this run alone.' })
  @OptionalField()
  @ValidateNested()
  @Type(() => ShrinkGuardOverrideDto)
  overrideShrinkGuard?: ShrinkGuardOverrideDto;
}

export class UndoRunDto {
  @ApiPropertyOptional({
    default: false,
    description:
      'true: compute the undo and answer it (200) with its counts, conflicts and the first rows of each list, writing nothing; false: queue it (202).',
  })
  @OptionalField()
  @IsBoolean()
  preview?: boolean;

  @ApiPropertyOptional({
    type: ShrinkGuardOverrideDto,
    description: 'Lifts the shrink guard for this undo alone (it deactivates what the run created).',
  })
  @OptionalField()
  @ValidateNested()
  @Type(() => ShrinkGuardOverrideDto)
  overrideShrinkGuard?: ShrinkGuardOverrideDto;
}
