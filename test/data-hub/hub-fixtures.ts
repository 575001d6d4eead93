import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { adminCall } from '../support/dashboard.js';
import { ok } from '../support/responses.js';

export const HUB = '/admin/data-hub';

/** A platform_drop connection of the caller's store under `prefix`, tested and active, and how to put files in it. */
export async function activeDrop(app: NestFastifyApplication, token: string, prefix: string) {
  const id = ok(await adminCall(app, 'POST', `${HUB}/connections`, token, { name: 'Drop', kind: 'platform_drop', config: { prefix } }), 201)
    .id as string;
  ok(await adminCall(app, 'POST', `${HUB}/connections/${id}/test`, token));
  ok(await adminCall(app, 'POST', `${HUB}/connections/${id}/activate`, token));
  const upload = async (name: string, content: string) =>
    ok(
      await app.inject({
        method: 'PUT',
        url: `${HUB}/connections/${id}/files/${name}`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
        payload: content,
      }),
    );
  return { id, upload };
}

/** A stock import mapping: `sku` from `skuColumn`, `stock` from `quantityColumn` through to_integer. */
export async function stockMapping(app: NestFastifyApplication, token: string, skuColumn = 'sku', quantityColumn = 'qty'): Promise<string> {
  return ok(
    await adminCall(app, 'POST', `${HUB}/mappings`, token, {
      name: 'Stock',
      structure: 'stock',
      direction: 'import',
      fields: [
        { target: 'sku', source: skuColumn, transforms: [{ name: 'trim' }] },
        { target: 'stock', source: quantityColumn, transforms: [{ name: 'to_integer' }] },
      ],
    }),
    201,
  ).id;
}

/** A stock export mapping: columns `SKU` and `Quantity` from the variants' sku and stock. */
export async function stockExportMapping(app: NestFastifyApplication, token: string): Promise<string> {
  return ok(
    await adminCall(app, 'POST', `${HUB}/mappings`, token, {
      name: 'Stock out',
      structure: 'stock',
      direction: 'export',
      fields: [
        { target: 'SKU', source: 'sku' },
        { target: 'Quantity', source: 'stock' },
      ],
    }),
    201,
  ).id;
}
