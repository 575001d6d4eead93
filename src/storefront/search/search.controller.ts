import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, RequireScope } from '../../auth/access/decorators.js';
import type { SessionPrincipal } from '../../auth/principal.js';
import { ApiProblemResponses } from '../../common/errors/openapi.js';
import { RenderedJson, sendRendered } from '../../infra/http/rendered-json.js';
import { CatalogueCache, cacheKey } from '../catalogue/catalogue-cache.js';
import { SearchQuery, SuggestionsQuery } from './dto/search.query.js';
import { SearchContextResponse, SearchPage, SuggestionsResponse } from './dto/search.response.js';
import { POPULAR_SHOWN, SearchContextService } from './search-context.service.js';
import { queryLocale, SearchRecorder } from './search-recorder.js';
import { SearchService } from './search.service.js';

@ApiTags('Search')
@Controller('v1/search')
export class SearchController {
  constructor(
    private readonly search: SearchService,
    private readonly context: SearchContextService,
    private readonly recorder: SearchRecorder,
    private readonly cache: CatalogueCache,
  ) {}

  @Get()
  @RequireScope('search:read')
  @ApiOperation({
    summary: 'Products matching a query in Arabic or English, with facets',
    description:
      'Every word must match a product’s names, brand, categories, SKUs or description (English and Arabic stemming; ' +
      'diacritics, alef forms, taa marbuta and alef maqsura do not matter). When that finds fewer than 3 products, ' +
      'misspelt words are corrected against the store’s vocabulary and `query.correctedQuery` says so. ' +
      'Every search is recorded with its result count.',
  })
  @ApiOkResponse({ type: SearchPage })
  @ApiProblemResponses(['VALIDATION_FAILED'])
  async find(
    @CurrentSession() session: SessionPrincipal,
    @Query() query: SearchQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    // Answers are kept with the store's catalogue pages and dropped with them when the catalogue changes.
    const { page, total } = await this.cache.get(session.storeId, cacheKey('search', query), () =>
      this.search.search(session.storeId, query),
    );
    this.recorder.record({
      storeId: session.storeId,
      sessionId: session.sessionId,
      query: query.q,
      locale: queryLocale(query.q),
      resultCount: total,
      searchedAt: new Date(),
    });
    return sendRendered(request, reply, page);
  }

  @Get('suggestions')
  @RequireScope('search:read')
  @ApiOperation({ summary: 'Completions as the shopper types: popular searches, categories, brands and products' })
  @ApiOkResponse({ type: SuggestionsResponse })
  @ApiProblemResponses(['VALIDATION_FAILED'])
  async suggestions(
    @CurrentSession() session: SessionPrincipal,
    @Query() query: SuggestionsQuery,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ) {
    const { page } = await this.cache.get(session.storeId, cacheKey('search/suggestions', query), () =>
      this.search.suggestions(session.storeId, query.q),
    );
    return sendRendered(request, reply, page);
  }

  @Get('context')
  @RequireScope('search:read')
  @ApiOperation({ summary: 'Popular searches in the store (last 30 days) and this session’s recent searches' })
  @ApiOkResponse({ type: SearchContextResponse })
  async searchContext(@CurrentSession() session: SessionPrincipal, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const [popular, recent] = await Promise.all([
      this.context.popular(session.storeId),
      this.context.recent(session.storeId, session.sessionId),
    ]);
    const body = { popular: popular.slice(0, POPULAR_SHOWN).map(({ query, count }) => ({ query, count })), recent };
    return sendRendered(request, reply, RenderedJson.fromText(JSON.stringify(body)));
  }
}
