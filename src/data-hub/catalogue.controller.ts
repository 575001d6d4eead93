import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/access/decorators.js';
import { TRANSFORMS } from './mappings/transforms.js';
import { STRUCTURES } from './structures/structures.js';

/** What mappings are built from (contract section 9): the structures flows carry and the transforms between. */
@ApiTags('Data hub')
@Controller('admin/data-hub')
export class DataHubCatalogueController {
  @Get('structures')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'Record structures flows can carry',
    description:
      'Each with its directions, natural key, fields (type, required, bilingual description) and what a `replace` import does to records a file no longer holds.',
  })
  @ApiOkResponse({ description: '`{ items: [{ name, directions, key, fields, deactivation }] }`' })
  structures() {
    return { items: STRUCTURES };
  }

  @Get('transforms')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'Transforms available to mappings',
    description: 'Each with the JSON schema of its args and a bilingual description.',
  })
  @ApiOkResponse({ description: '`{ items: [{ name, args, description_en, description_ar }] }`' })
  transforms() {
    return { items: TRANSFORMS.map(({ name, args, description_en, description_ar }) => ({ name, args, description_en, description_ar })) };
  }
}
