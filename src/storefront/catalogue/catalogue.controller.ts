import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, RequireScope } from '../../auth/access/decorators.js';
import type { SessionPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { sendRendered } from '../../infra/http/rendered-json.js';
import { StorefrontEventRecorder } from '../events/storefront-event-recorder.js';
import { CatalogueCache, type CataloguePage, cacheKey } from './catalogue-cache.js';
import { CatalogueService } from './catalogue.service.js';
import { BrandPage, BrandResponse, CategoryDetailResponse, CategoryPage, ProductPage, ProductResponse } from './dto/catalogue.response.js';
import { ListCategoriesQuery } from './dto/list-categories.query.js';
import { ListProductsQuery } from './dto/list-products.query.js';

const ID_OR_SLUG = { name: 'idOrSlug', description: 'The record’s UUID or its slug.' };

@ApiTags('Catalogue')
@ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag from an earlier answer: 304 when nothing changed.' })
@ApiResponse({ status: 304, description: 'Not modified since the ETag in If-None-Match.' })
@Controller('v1/catalogue')
export class CatalogueController {
  constructor(
    private readonly catalogue: CatalogueService,
    private readonly cache: CatalogueCache,
    private readonly events: StorefrontEventRecorder,
  ) {}

  @Get('products')
  @RequireScope('catalogue:read')
  @ApiOperation({ summary: 'Active products, newest first, with variants; filter by category (subtree) or brand' })
  @ApiOkResponse({ type: ProductPage })
  @ApiProblemResponses(['VALIDATION_FAILED'])
  async listProducts(
    @CurrentSession() session: SessionPrincipal,
    @Query() query: ListProductsQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.respond(request, reply, session.storeId, cacheKey('products', query), () =>
      this.catalogue.listProducts(session.storeId, query),
    );
  }

  @Get('products/:idOrSlug')
  @RequireScope('catalogue:read')
  @ApiOperation({ summary: 'One product with its variants' })
  @ApiParam(ID_OR_SLUG)
  @ApiOkResponse({ type: ProductResponse })
  @ApiProblemResponses(['NOT_FOUND'])
  async getProduct(
    @CurrentSession() session: SessionPrincipal,
    @Param('idOrSlug') idOrSlug: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const { page, productIds } = await this.cache.get(session.storeId, cacheKey(`products/${idOrSlug}`), () =>
      this.catalogue.getProduct(session.storeId, idOrSlug),
    );
    this.events.productViewed(session.storeId, session.sessionId, productIds[0]);
    return sendRendered(request, reply, page);
  }

  @Get('categories')
  @RequireScope('catalogue:read')
  @ApiOperation({ summary: 'Categories breadth-first (top level first), or the children of one parent' })
  @ApiOkResponse({ type: CategoryPage })
  @ApiProblemResponses(['VALIDATION_FAILED'])
  async listCategories(
    @CurrentSession() session: SessionPrincipal,
    @Query() query: ListCategoriesQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.respond(request, reply, session.storeId, cacheKey('categories', query), () =>
      this.catalogue.listCategories(session.storeId, query),
    );
  }

  @Get('categories/:idOrSlug')
  @RequireScope('catalogue:read')
  @ApiOperation({ summary: 'One category with its breadcrumb and children' })
  @ApiParam(ID_OR_SLUG)
  @ApiOkResponse({ type: CategoryDetailResponse })
  @ApiProblemResponses(['NOT_FOUND'])
  async getCategory(
    @CurrentSession() session: SessionPrincipal,
    @Param('idOrSlug') idOrSlug: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.respond(request, reply, session.storeId, cacheKey(`categories/${idOrSlug}`), () =>
      this.catalogue.getCategory(session.storeId, idOrSlug),
    );
  }

  @Get('brands')
  @RequireScope('catalogue:read')
  @ApiOperation({ summary: 'Brands by slug' })
  @ApiOkResponse({ type: BrandPage })
  @ApiProblemResponses(['VALIDATION_FAILED'])
  async listBrands(
    @CurrentSession() session: SessionPrincipal,
    @Query() query: ListQueryDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.respond(request, reply, session.storeId, cacheKey('brands', query), () =>
      this.catalogue.listBrands(session.storeId, query),
    );
  }

  @Get('brands/:idOrSlug')
  @RequireScope('catalogue:read')
  @ApiOperation({ summary: 'One brand' })
  @ApiParam(ID_OR_SLUG)
  @ApiOkResponse({ type: BrandResponse })
  @ApiProblemResponses(['NOT_FOUND'])
  async getBrand(
    @CurrentSession() session: SessionPrincipal,
    @Param('idOrSlug') idOrSlug: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    return this.respond(request, reply, session.storeId, cacheKey(`brands/${idOrSlug}`), () =>
      this.catalogue.getBrand(session.storeId, idOrSlug),
    );
  }

  /** Serves the store's rendered page for `key`, rendering it only when it is not cached. */
  private async respond(request: FastifyRequest, reply: FastifyReply, storeId: string, key: string, render: () => Promise<CataloguePage>) {
    return sendRendered(request, reply, (await this.cache.get(storeId, key, render)).page);
  }
}
