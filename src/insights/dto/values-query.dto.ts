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

  @ApiPropertyOptional({
    description:
      'A value as it is (an id, a code, as a report’s rows and `filter[]` carry it): that value alone with its names, or no item when the dimension has no such value. A shared link’s filters are named so.',
  })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  value?: string;
}
