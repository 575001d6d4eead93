import { randomUUID } from 'node:crypto';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate } from 'class-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { RegisterDto } from '../../src/account/dto/sign-in.dto.js';
import { StoreService } from '../../src/stores/store.service.js';
import { addStaff, staffToken } from '../support/dashboard.js';
import { accessToken, get, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';

type Schema = { $ref?: string; allOf?: Schema[]; type?: string | string[]; properties?: Record<string, Schema> };
type Operation = {
  requestBody?: { content: Record<string, { schema: Schema }> };
  parameters?: { name: string; in: string; schema: Schema }[];
};
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

describe('validation answers (issue 8 items 8 and 9)', () => {
  const t = useTestApp();
  let store: TestStore;
  let token: string;
  let staff: string;
  let document: OpenApi;

  beforeAll(async () => {
    store = await t.store();
    token = await accessToken(t.app, store.key);
    await t.app.get(StoreService).setPlan(store.storeId, 'pro');
    staff = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    document = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  });

  const send = (method: string, url: string, payload: unknown) =>
    t.app.inject({
      method: method as 'POST',
      url,
      headers: {
        'x-api-key': store.key,
        authorization: `Bearer ${url.startsWith('/admin/') ? staff : token}`,
        'idempotency-key': randomUUID(),
        'content-type': 'application/json',
      },
      payload: JSON.stringify(payload),
    });
  const errorsOf = (body: Record<string, any>) => body.errors as { field: string; code: string; message_en: string; message_ar: string }[];

  describe('each failing field is named once, with the constraint it failed and its limit', () => {
    it('a list limit: the type, or the bound it crosses', async () => {
      const cases: [string, string, string][] = [
        ['abc', 'isInt', 'Must be a whole number.'],
        ['0', 'min', 'Must be at least 1.'],
        ['101', 'max', 'Must be at most 100.'],
      ];
      for (const [limit, code, message] of cases) {
        const body = expectProblem(await get(t.app, `/v1/catalogue/products?limit=${limit}`, token), 400, 'VALIDATION_FAILED');
        expect(errorsOf(body)).toEqual([{ field: 'limit', code, message_en: message, message_ar: expect.any(String) }]);
      }
      const over = errorsOf(expectProblem(await get(t.app, '/v1/catalogue/products?limit=101', token), 400, 'VALIDATION_FAILED'))[0];
      expect(over.message_ar).toContain('100');
    });

    it('text lengths and list sizes, with their limits in both languages', async () => {
      const register = await send('POST', '/v1/account/register', {
        email: 'a@example.com',
        password: 'short',
        firstName: 'x'.repeat(101),
      });
      expect(errorsOf(expectProblem(register, 400, 'VALIDATION_FAILED'))).toEqual([
        expect.objectContaining({ field: 'password', code: 'minLength', message_en: 'Must be at least 8 characters long.' }),
        expect.objectContaining({ field: 'firstName', code: 'maxLength', message_en: 'Must be at most 100 characters long.' }),
      ]);
      const scopes = Array.from({ length: 17 }, () => 'catalogue:read');
      const [scope] = errorsOf(expectProblem(await send('POST', '/v1/auth/anonymous', { scope: scopes }), 400, 'VALIDATION_FAILED'));
      expect(scope).toMatchObject({ field: 'scope', code: 'arrayMaxSize', message_en: 'Must have at most 16 items.' });
      expect(scope.message_ar).toContain('16');
    });

    it('a quantity given as text is a type error only, not also "below 1" and "above 999"', async () => {
      const body = expectProblem(
        await send('POST', '/v1/cart/items', { variantId: randomUUID(), quantity: 'many' }),
        400,
        'VALIDATION_FAILED',
      );
      expect(errorsOf(body)).toEqual([expect.objectContaining({ field: 'quantity', code: 'isInt' })]);
    });
  });

  describe('one null rule for every body field the document describes', () => {
    // place-order.dto.ts still uses IsOptional (null passes as absent); its owner switches it to OptionalField.
    /** A documented nested object is a `$ref` wrapped in `allOf` (to carry its description). */
    const referenceOf = (schema: Schema) => schema.$ref ?? schema.allOf?.[0]?.$ref;
    const resolve = (schema: Schema): Schema => {
      const ref = referenceOf(schema);
      return ref ? document.components.schemas[ref.split('/').pop()!] : schema;
    };
    const isNullable = (schema: Schema) => Array.isArray(schema.type) && schema.type.includes('null');

    /** Every property of a body schema, nested objects included, as the body that sets it (alone) to null. */
    function nullBodies(schema: Schema, path: string[] = []): { field: string; nullable: boolean; body: unknown }[] {
      const object = resolve(schema);
      return Object.entries(object.properties ?? {}).flatMap(([name, property]) => {
        const nest = (value: unknown): unknown => [...path].reverse().reduce((inner, key) => ({ [key]: inner }), { [name]: value });
        const own = {
          field: [...path, name].join('.'),
          nullable: isNullable(property),
          body: nest(null),
        };
        return referenceOf(property) ? [own, ...nullBodies(property, [...path, name])] : [own];
      });
    }

    it('null is refused naming the field unless the schema allows null, where it is accepted', async () => {
      let checked = 0;
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const schema = operation.requestBody?.content['application/json']?.schema;
          if (!schema) continue;
          const url = path.replace(/\{\w+\}/g, randomUUID());
          for (const { field, nullable, body } of nullBodies(schema)) {
            const response = await send(method.toUpperCase(), url, body);
            const label = `${method.toUpperCase()} ${path} ${field}: ${response.statusCode} ${response.body}`;
            expect(response.statusCode, label).toBeLessThan(500);
            const named =
              response.statusCode === 400
                ? (JSON.parse(response.body).errors ?? []).filter((e: { field: string }) => e.field === field)
                : [];
            expect(named, label).toHaveLength(nullable ? 0 : 1);
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(40);
    });
  });

  describe('OpenAPI types whole numbers as integer', () => {
    it('no schema or parameter anywhere in the document is typed number (money, counts and limits are integers) but ratios in 0..1, percentages in 0..100 and any JSON value', () => {
      const numbers: string[] = [];
      const ANY_JSON = ['string', 'number', 'boolean', 'array', 'object'];
      const walk = (value: unknown, at: string) => {
        if (Array.isArray(value)) return value.forEach((item, index) => walk(item, `${at}[${index}]`));
        if (value === null || typeof value !== 'object') return;
        const record = value as Record<string, unknown>;
        // A value a file's cell or a JSON schema's default holds: any of JSON's types, numbers among them.
        const types = Array.isArray(record.oneOf) ? record.oneOf.map((option: { type?: string }) => option.type) : [];
        if (ANY_JSON.every((type) => types.includes(type))) return;
        const fraction = record.minimum === 0 && (record.maximum === 1 || record.maximum === 100);
        if (!fraction && (record.type === 'number' || (Array.isArray(record.type) && record.type.includes('number')))) numbers.push(at);
        for (const [key, child] of Object.entries(record)) walk(child, `${at}.${key}`);
      };
      walk(document, '$');
      expect(numbers).toEqual([]);
    });

    it('every field the validator requires to be a whole number is typed integer in the document', () => {
      const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Function, { propertyName: string; name?: string }[]> };
      const queryParameters = Object.values(document.paths)
        .flatMap((operations) => Object.values(operations))
        .flatMap((operation) => operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query');
      const seen: string[] = [];
      for (const [target, metadata] of storage.validationMetadatas) {
        for (const { propertyName } of metadata.filter((entry) => entry.name === 'isInt')) {
          const schema = document.components.schemas[target.name];
          // A nullable whole number (one that null clears) is typed ['integer', 'null'].
          const wholeNumber = (type: string | string[] | undefined) =>
            (Array.isArray(type) ? type.filter((one) => one !== 'null') : [type]).join();
          const types = schema
            ? [wholeNumber(schema.properties?.[propertyName]?.type)]
            : queryParameters.filter((parameter) => parameter.name === propertyName).map((parameter) => wholeNumber(parameter.schema.type));
          if (types.length === 0) continue; // not part of the HTTP API (configuration)
          seen.push(`${target.name}.${propertyName}`);
          expect(types, `${target.name}.${propertyName}`).toEqual(types.map(() => 'integer'));
        }
      }
      expect(seen).toEqual(expect.arrayContaining(['ListQueryDto.limit', 'AddCartItemDto.quantity', 'SearchQuery.priceMin']));
    });
  });

  it('the email validator refuses a lone surrogate instead of throwing', async () => {
    const dto = plainToInstance(RegisterDto, { email: 'shopper\ud800@example.com', password: 'long enough' });
    const errors = await validate(dto);
    expect(errors.map((error) => [error.property, Object.keys(error.constraints ?? {})])).toEqual([['email', ['isEmail']]]);
  });
});
