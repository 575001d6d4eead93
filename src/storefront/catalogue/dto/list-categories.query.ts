import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { OptionalField } from '../../../common/validation/fields.js';
import { ListQueryDto } from '../../../common/pagination/list-query.dto.js';

export class ListCategoriesQuery extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Only the direct children of this category (id or slug), or `root` for top-level categories.' })
  @OptionalField()
  @IsString()
  @MaxLength(200)
  parent?: string;
}
