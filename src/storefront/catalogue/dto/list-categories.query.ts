import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto.js';

export class ListCategoriesQuery extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Only the direct children of this category (id or slug), or `root` for top-level categories.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  parent?: string;
}
