import { beforeAll, describe, expect, it } from 'vitest';
import { type TestStore } from '../support/fixtures.js';
import { expectProblem, fields } from '../support/problem.js';
import { useTestApp } from '../support/harness.js';
import { parse } from '../support/responses.js';
import type { StorefrontClient } from '../support/storefront-client.js';
import { latestCode, signedUp, uniqueEmail } from './helpers.js';

const HOME = {
  label: 'Home',
  fullName: 'Noura Al-Qahtani',
  phone: '+966 50 123 4567',
  line1: '7421 King Fahd Road',
  district: 'Al Olaya',
  city: 'Riyadh',
  postalCode: '12214',
  country: 'sa',
};

describe('shopper addresses', () => {
  const t = useTestApp();
  let store: TestStore;
  let otherStore: TestStore;

  beforeAll(async () => {
    [store, otherStore] = await Promise.all([t.store(), t.store()]);
  });

  const addresses = (shopper: StorefrontClient, query = '') => shopper.call('GET', `/v1/account/addresses${query}`);
  const add = (shopper: StorefrontClient, body: Record<string, unknown>) => shopper.call('POST', '/v1/account/addresses', body);
  const change = (shopper: StorefrontClient, id: string, body: Record<string, unknown>) =>
    shopper.call('PATCH', `/v1/account/addresses/${id}`, body);
  const remove = (shopper: StorefrontClient, id: string) => shopper.call('DELETE', `/v1/account/addresses/${id}`);

  it('creates, lists (default first, then newest), changes and deletes', async () => {
    const shopper = await signedUp(t, store);
    const first = await add(shopper, HOME);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({
      id: expect.any(String),
      label: 'Home',
      fullName: 'Noura Al-Qahtani',
      phone: '+966501234567',
      line1: '7421 King Fahd Road',
      line2: '',
      district: 'Al Olaya',
      city: 'Riyadh',
      region: '',
      postalCode: '12214',
      country: 'SA',
      isDefaultShipping: true,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    const second = (await add(shopper, { ...HOME, label: 'Work', line1: '1 Tahlia Street' })).json();
    const third = (await add(shopper, { ...HOME, label: 'Parents', city: 'Jeddah' })).json();
    expect(second.isDefaultShipping).toBe(false);
    expect((await addresses(shopper)).json()).toEqual({
      items: [first.json(), third, second],
      nextCursor: null,
    });

    // Pages: default first, then newest, across cursors.
    const page1 = (await addresses(shopper, '?limit=2')).json();
    expect(page1.items.map((a: { id: string }) => a.id)).toEqual([first.json().id, third.id]);
    const page2 = (await addresses(shopper, `?limit=2&cursor=${page1.nextCursor}`)).json();
    expect(page2).toEqual({ items: [second], nextCursor: null });

    // Making another the default unsets the previous one.
    const madeDefault = await change(shopper, second.id, { isDefaultShipping: true, line2: 'Floor 3' });
    expect(madeDefault.statusCode).toBe(200);
    expect(madeDefault.json()).toMatchObject({ isDefaultShipping: true, line2: 'Floor 3', label: 'Work' });
    const listed = (await addresses(shopper)).json().items;
    expect(listed.map((a: { id: string }) => a.id)).toEqual([second.id, third.id, first.json().id]);
    expect(listed.filter((a: { isDefaultShipping: boolean }) => a.isDefaultShipping)).toHaveLength(1);

    // Un-defaulting the default is refused: another address must become the default.
    expect(fields(expectProblem(await change(shopper, second.id, { isDefaultShipping: false }), 400, 'VALIDATION_FAILED'))).toEqual([
      'isDefaultShipping',
    ]);

    // Deleting the default promotes the most recently updated remaining address.
    await change(shopper, first.json().id, { label: 'Home (old)' });
    expect((await remove(shopper, second.id)).statusCode).toBe(204);
    const after = (await addresses(shopper)).json().items;
    expect(after.map((a: { id: string; isDefaultShipping: boolean }) => [a.id, a.isDefaultShipping])).toEqual([
      [first.json().id, true],
      [third.id, false],
    ]);
    expectProblem(await remove(shopper, second.id), 404, 'NOT_FOUND');
  });

  it('validates fields; a malformed id is a 404', async () => {
    const shopper = await signedUp(t, store);
    const refused = expectProblem(await add(shopper, { ...HOME, country: 'XX', phone: '12', fullName: '' }), 400, 'VALIDATION_FAILED');
    expect(fields(refused).sort()).toEqual(['country', 'fullName', 'phone']);
    expectProblem(await add(shopper, { ...HOME, city: undefined }), 400, 'VALIDATION_FAILED');
    expectProblem(await add(shopper, { ...HOME, owner: 'me' }), 400, 'VALIDATION_FAILED');
    const created = (await add(shopper, HOME)).json();
    expectProblem(await change(shopper, created.id, { fullName: null }), 400, 'VALIDATION_FAILED');
    expectProblem(await change(shopper, created.id, { country: 'Saudi Arabia' }), 400, 'VALIDATION_FAILED');
    expectProblem(await change(shopper, 'not-a-uuid', { city: 'Dammam' }), 404, 'NOT_FOUND');
    expectProblem(await remove(shopper, 'not-a-uuid'), 404, 'NOT_FOUND');
    expectProblem(await addresses(shopper, '?cursor=bogus'), 400, 'VALIDATION_FAILED');
  });

  it('at most 50 addresses per shopper, even when added at once', async () => {
    const shopper = await signedUp(t, store);
    await t.db.query(
      `insert into addresses (store_id, shopper_id, full_name, phone, line1, city, country)
       select $1, $2, 'Filler ' || n, '+966501234567', n || ' Street', 'Riyadh', 'SA' from generate_series(1, 45) n`,
      [store.storeId, shopper.shopperId],
    );
    const answers = await Promise.all(Array.from({ length: 8 }, () => shopper.callOverHttp('POST', '/v1/account/addresses', HOME)));
    expect(answers.filter((answer) => answer.statusCode === 201)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.statusCode === 409);
    expect(refused).toHaveLength(3);
    expect(parse(refused[0])).toMatchObject({ code: 'ADDRESS_LIMIT_REACHED', limit: 50 });
    const { rows } = await t.db.query(
      'select count(*)::int as n, count(*) filter (where is_default_shipping)::int as defaults from addresses where shopper_id = $1',
      [shopper.shopperId],
    );
    expect(rows[0]).toEqual({ n: 50, defaults: 0 });
  });

  it('another shopper’s or another store’s address is not found', async () => {
    const owner = await signedUp(t, store);
    const address = (await add(owner, HOME)).json();
    const neighbour = await signedUp(t, store);
    const foreigner = await signedUp(t, otherStore);
    for (const intruder of [neighbour, foreigner]) {
      expectProblem(await change(intruder, address.id, { city: 'Dammam' }), 404, 'NOT_FOUND');
      expectProblem(await remove(intruder, address.id), 404, 'NOT_FOUND');
      expect((await addresses(intruder)).json()).toEqual({ items: [], nextCursor: null });
    }
    expect((await addresses(owner)).json().items).toEqual([address]);
  });

  it('the same email in two stores is two shoppers', async () => {
    const email = uniqueEmail('twice');
    const inA = await signedUp(t, store, { email, password: 'password in store A' });
    const inB = await signedUp(t, otherStore, { email, password: 'password in store B' });
    expect(inA.shopperId).not.toBe(inB.shopperId);
    const { rows } = await t.db.query('select store_id from shoppers where email_normalized = $1 order by store_id', [email]);
    expect(rows.map((row) => row.store_id).sort()).toEqual([store.storeId, otherStore.storeId].sort());

    // Each store's password works only in that store.
    const s = await t.shopper(otherStore);
    expectProblem(await s.call('POST', '/v1/account/sign-in', { email, password: 'password in store A' }), 401, 'INVALID_CREDENTIALS');
    expect((await s.call('POST', '/v1/account/sign-in', { email, password: 'password in store B' })).json().id).toBe(inB.shopperId);

    // A code sent in store A does not sign in to store B.
    const a = await t.shopper(store);
    await a.call('POST', '/v1/account/one-time-codes', { email });
    const codeFromA = await latestCode(t.db, store.storeId, email);
    const b = await t.shopper(otherStore);
    const answer = await b.call('POST', '/v1/account/one-time-codes/verify', { email, code: codeFromA });
    expect(answer.statusCode).toBe(401);
  });
});
