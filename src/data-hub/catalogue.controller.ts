import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/access/decorators.js';
import { TRANSFORMS } from './mappings/transforms/registry.js';
import { STRUCTURES } from './structures/structures.js';

/**
 * What mappings are built from (contract section 9): the structures flows carry and the transforms between,
 * each named for the merchant in both languages (`label_en` / `label_ar`) beside the identifier a mapping uses.
 */
@ApiTags('Data hub')
@Controller('admin/data-hub')
export class DataHubCatalogueController {
  @Get('structures')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'Record structures flows can carry',
    description:
      'Each with its label in English and Arabic, its directions, natural key, fields (label, type, required, bilingual ' +
      'description) and what a `replace` import does to records a file no longer holds. `name` is the identifier a ' +
      'mapping names; `label_en` / `label_ar` are what a merchant reads ("Price before discount" for `compare_at_price`).',
  })
  @ApiOkResponse({
    description:
      '`{ items: [{ name, label_en, label_ar, directions, key, fields: [{ name, label_en, label_ar, type, required, ' +
      'maxLength?, values?, description_en, description_ar }], deactivation }] }`',
  })
  structures() {
    return { items: STRUCTURES };
  }

  @Get('transforms')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'Transforms available to mappings',
    description:
      'Each with its label in English and Arabic, the JSON schema of its args, the label of each arg (`argLabels`, by ' +
      'the name of the property in `args.properties`) and a bilingual description. `name` and the args’ property ' +
      'names are the identifiers a mapping uses.',
  })
  @ApiOkResponse({
    description:
      '`{ items: [{ name, label_en, label_ar, args, argLabels: { <arg>: { label_en, label_ar } }, description_en, description_ar }] }`',
  })
  transforms() {
    return {
      items: TRANSFORMS.map(({ name, label_en, label_ar, args, argLabels, description_en, description_ar }) => ({
        name,
        label_en,
        label_ar,
        args,
        argLabels,
        description_en,
        description_ar,
      })),
    };
  }
}
