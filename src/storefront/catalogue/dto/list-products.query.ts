import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQueryDto } from '../../../common/pagination/list-query.dto.js';

export class ListProductsQuery extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Category id or slug; products of its subcategories are included.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  category?: string;

  @ApiPropertyOptional({ description: 'Brand id or slug.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  brand?: string;
}
