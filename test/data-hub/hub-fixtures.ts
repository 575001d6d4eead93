import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
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

type Json = Record<string, any>;
export type RunList = 'rejected' | 'created' | 'changed' | 'deactivated' | 'conflicts';

/**
 * Import flows of a store's drop, run and undone as a member does: each flow's mapping fills each field
 * from the column of its own name (money through to_decimal_minor, the rest trimmed); a field given as
 * `{ target, clearWhenEmpty }` is cleared by an empty cell. Queued runs are executed at once.
 */
export function importRuns(app: NestFastifyApplication, token: string, drop: string) {
  const call = (method: string, url: string, body?: unknown) => adminCall(app, method, url, token, body);
  const money = new Set(['price', 'compare_at_price']);
  const execute = async (queued: Json) => {
    await app.get(RunsService).execute(queued.id);
    return ok(await call('GET', `${HUB}/runs/${queued.id}`));
  };
  return {
    async importFlow(structure: string, fields: (string | { target: string; clearWhenEmpty: boolean })[], file: string, extra: Json = {}) {
      const mapping = ok(
        await call('POST', `${HUB}/mappings`, {
          name: structure,
          structure,
          direction: 'import',
          fields: fields.map((field) => {
            const { target, clearWhenEmpty } = typeof field === 'string' ? { target: field, clearWhenEmpty: undefined } : field;
            return {
              target,
              source: target,
              transforms: money.has(target) ? [{ name: 'to_decimal_minor' }] : [{ name: 'trim' }],
              ...(clearWhenEmpty ? { clearWhenEmpty } : {}),
            };
          }),
        }),
        201,
      ).id;
      return ok(
        await call('POST', `${HUB}/flows`, {
          name: structure,
          connectionId: drop,
          mappingId: mapping,
          direction: 'import',
          format: 'csv',
          fileTemplate: file,
          ...extra,
        }),
        201,
      ).id as string;
    },
    preview: async (flowId: string, body: Json = {}) => ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true, ...body })),
    runNow: async (flowId: string, body: Json = {}) => execute(ok(await call('POST', `${HUB}/flows/${flowId}/runs`, body), 202)),
    /** The undo of a run: its preview (200), or queued (202) and executed. */
    undo: async (runId: string, body: Json = {}) => {
      const answer = await call('POST', `${HUB}/runs/${runId}/undo`, body);
      return body.preview ? ok(answer) : execute(ok(answer, 202));
    },
    list: async (runId: string, name: RunList) => ok(await call('GET', `${HUB}/runs/${runId}/${name}?limit=100`)).items as Json[],
  };
}
