import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/access/decorators.js';
import { requiredPlan } from '../common/permissions.js';
import { ConnectorRegistry } from './connectors/connector-registry.js';
import { CONNECTOR_FORMS } from './connectors/connector-config.dto.js';
import { ConnectorKindListDoc, StructureListDoc, TransformListDoc } from './dto/data-hub.response.js';
import { TRANSFORMS } from './mappings/transforms/registry.js';
import { RECORD_IMPORTS } from './runs/record-imports.js';
import { STRUCTURES } from './structures/structures.js';

/**
 * What connections and mappings are built from (contract section 9): the kinds of connection with the fields
 * of each, the structures flows carry and the transforms between, each structure and transform named for the
 * merchant in both languages (`label_en` / `label_ar`) beside the identifier a mapping uses.
 */
@ApiTags('Data hub')
@Controller('admin/data-hub')
export class DataHubReferenceController {
  constructor(private readonly connectors: ConnectorRegistry) {}

  @Get('connectors')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'The kinds of connection and what each takes',
    description:
      'Each kind with the plan entitlement it needs, whether it is a file kind (flows read and write its files, reports are ' +
      'delivered to it) and the members of its `config` and write-only `credentials`, in the order a form shows them.',
  })
  @ApiOkResponse({ type: ConnectorKindListDoc })
  connectorKinds() {
    return {
      items: CONNECTOR_FORMS.map(({ kind, config, credentials }) => {
        const connector = this.connectors.of(kind);
        return {
          kind,
          entitlement: connector.entitlement ?? null,
          plan: connector.entitlement ? requiredPlan(connector.entitlement) : null,
          files: connector.location !== undefined,
          config,
          credentials,
        };
      }),
    };
  }

  @Get('structures')
  @RequirePermission('data.flows.read')
  @ApiOperation({
    summary: 'Record structures flows can carry',
    description:
      'Each with its label in English and Arabic, its directions, natural key, fields (label, type, required, bilingual ' +
      'description) and what a `replace` import does to records a file no longer holds. `name` is the identifier a ' +
      'mapping names; `label_en` / `label_ar` are what a merchant reads ("Price before discount" for `compare_at_price`).',
  })
  @ApiOkResponse({ type: StructureListDoc })
  structures() {
    return { items: STRUCTURES.map((structure) => ({ ...structure, creates: RECORD_IMPORTS[structure.name]?.createsRecords ?? false })) };
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
  @ApiOkResponse({ type: TransformListDoc })
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
