import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { OptionalField } from '../../../common/validation/fields.js';
import { ListQueryDto } from '../../../common/pagination/list-query.dto.js';

export class ListProductsQuery extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Category id or slug; products of its subcategories are included.' })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  category?: string;

  @ApiPropertyOptional({ description: 'Brand id or slug.' })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  brand?: string;
}
