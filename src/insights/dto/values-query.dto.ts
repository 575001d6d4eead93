import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { OptionalField } from '../../common/validation/fields.js';

export class DimensionValuesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Part of a value’s name, in English or Arabic (letter forms and diacritics ignored).' })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  q?: string;
}
