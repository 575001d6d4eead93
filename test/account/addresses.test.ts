import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type TestStore } from '../support/fixtures.js';
import { expectProblem, fields } from '../support/problem.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { call, closeDb, db, latestCode, post, session, signedUp, uniqueEmail } from './helpers.js';

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
  let t: TestApp;
  let store: TestStore;
  let otherStore: TestStore;

  beforeAll(async () => {
    t = await startTestApp();
    [store, otherStore] = await Promise.all([createStore(t.app), createStore(t.app)]);
  });
  afterAll(async () => {
    await closeDb();
    await t.close();
  });

  const addresses = (token: string, query = '') => call(t.app, 'GET', `/v1/account/addresses${query}`, token);
  const add = (token: string, body: Record<string, unknown>) => call(t.app, 'POST', '/v1/account/addresses', token, body);
  const change = (token: string, id: string, body: Record<string, unknown>) =>
    call(t.app, 'PATCH', `/v1/account/addresses/${id}`, token, body);
  const remove = (token: string, id: string) => call(t.app, 'DELETE', `/v1/account/addresses/${id}`, token);

  it('creates, lists (default first, then newest), changes and deletes', async () => {
    const shopper = await signedUp(t.app, store.key, store.storeId);
    const first = await add(shopper.token, HOME);
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
    const second = (await add(shopper.token, { ...HOME, label: 'Work', line1: '1 Tahlia Street' })).json();
    const third = (await add(shopper.token, { ...HOME, label: 'Parents', city: 'Jeddah' })).json();
    expect(second.isDefaultShipping).toBe(false);
    expect((await addresses(shopper.token)).json()).toEqual({
      items: [first.json(), third, second],
      nextCursor: null,
    });

    // Pages: default first, then newest, across cursors.
    const page1 = (await addresses(shopper.token, '?limit=2')).json();
    expect(page1.items.map((a: { id: string }) => a.id)).toEqual([first.json().id, third.id]);
    const page2 = (await addresses(shopper.token, `?limit=2&cursor=${page1.nextCursor}`)).json();
    expect(page2).toEqual({ items: [second], nextCursor: null });

    // Making another the default unsets the previous one.
    const madeDefault = await change(shopper.token, second.id, { isDefaultShipping: true, line2: 'Floor 3' });
    expect(madeDefault.statusCode).toBe(200);
    expect(madeDefault.json()).toMatchObject({ isDefaultShipping: true, line2: 'Floor 3', label: 'Work' });
    const listed = (await addresses(shopper.token)).json().items;
    expect(listed.map((a: { id: string }) => a.id)).toEqual([second.id, third.id, first.json().id]);
    expect(listed.filter((a: { isDefaultShipping: boolean }) => a.isDefaultShipping)).toHaveLength(1);

    // Un-defaulting the default is refused: another address must become the default.
    expect(fields(expectProblem(await change(shopper.token, second.id, { isDefaultShipping: false }), 400, 'VALIDATION_FAILED'))).toEqual([
      'isDefaultShipping',
    ]);

    // Deleting the default promotes the most recently updated remaining address.
    await change(shopper.token, first.json().id, { label: 'Home (old)' });
    expect((await remove(shopper.token, second.id)).statusCode).toBe(204);
    const after = (await addresses(shopper.token)).json().items;
    expect(after.map((a: { id: string; isDefaultShipping: boolean }) => [a.id, a.isDefaultShipping])).toEqual([
      [first.json().id, true],
      [third.id, false],
    ]);
    expectProblem(await remove(shopper.token, second.id), 404, 'NOT_FOUND');
  });

  it('validates fields; a malformed id is a 404', async () => {
    const shopper = await signedUp(t.app, store.key, store.storeId);
    const refused = expectProblem(
      await add(shopper.token, { ...HOME, country: 'XX', phone: '12', fullName: '' }),
      400,
      'VALIDATION_FAILED',
    );
    expect(fields(refused).sort()).toEqual(['country', 'fullName', 'phone']);
    expectProblem(await add(shopper.token, { ...HOME, city: undefined }), 400, 'VALIDATION_FAILED');
    expectProblem(await add(shopper.token, { ...HOME, owner: 'me' }), 400, 'VALIDATION_FAILED');
    const created = (await add(shopper.token, HOME)).json();
    expectProblem(await change(shopper.token, created.id, { fullName: null }), 400, 'VALIDATION_FAILED');
    expectProblem(await change(shopper.token, created.id, { country: 'Saudi Arabia' }), 400, 'VALIDATION_FAILED');
    expectProblem(await change(shopper.token, 'not-a-uuid', { city: 'Dammam' }), 404, 'NOT_FOUND');
    expectProblem(await remove(shopper.token, 'not-a-uuid'), 404, 'NOT_FOUND');
    expectProblem(await addresses(shopper.token, '?cursor=bogus'), 400, 'VALIDATION_FAILED');
  });

  it('at most 50 addresses per shopper, even when added at once', async () => {
    const shopper = await signedUp(t.app, store.key, store.storeId);
    const client = await db();
    await client.query(
      `insert into addresses (store_id, shopper_id, full_name, phone, line1, city, country)
       select $1, $2, 'Filler ' || n, '+966501234567', n || ' Street', 'Riyadh', 'SA' from generate_series(1, 45) n`,
      [store.storeId, shopper.shopperId],
    );
    const base = await t.listen();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(base, '/v1/account/addresses', shopper.token, HOME)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.status === 409);
    expect(refused).toHaveLength(3);
    expect(refused[0].body).toMatchObject({ code: 'ADDRESS_LIMIT_REACHED', limit: 50 });
    const { rows } = await client.query(
      'select count(*)::int as n, count(*) filter (where is_default_shipping)::int as defaults from addresses where shopper_id = $1',
      [shopper.shopperId],
    );
    expect(rows[0]).toEqual({ n: 50, defaults: 0 });
  });

  it('another shopper’s or another store’s address is not found', async () => {
    const owner = await signedUp(t.app, store.key, store.storeId);
    const address = (await add(owner.token, HOME)).json();
    const neighbour = await signedUp(t.app, store.key, store.storeId);
    const foreigner = await signedUp(t.app, otherStore.key, otherStore.storeId);
    for (const intruder of [neighbour, foreigner]) {
      expectProblem(await change(intruder.token, address.id, { city: 'Dammam' }), 404, 'NOT_FOUND');
      expectProblem(await remove(intruder.token, address.id), 404, 'NOT_FOUND');
      expect((await addresses(intruder.token)).json()).toEqual({ items: [], nextCursor: null });
    }
    expect((await addresses(owner.token)).json().items).toEqual([address]);
  });

  it('the same email in two stores is two shoppers', async () => {
    const email = uniqueEmail('twice');
    const inA = await signedUp(t.app, store.key, store.storeId, { email, password: 'password in store A' });
    const inB = await signedUp(t.app, otherStore.key, otherStore.storeId, { email, password: 'password in store B' });
    expect(inA.shopperId).not.toBe(inB.shopperId);
    const { rows } = await (await db()).query('select store_id from shoppers where email_normalized = $1 order by store_id', [email]);
    expect(rows.map((row) => row.store_id).sort()).toEqual([store.storeId, otherStore.storeId].sort());

    // Each store's password works only in that store.
    const s = await session(t.app, otherStore.key);
    expectProblem(
      await call(t.app, 'POST', '/v1/account/sign-in', s.token, { email, password: 'password in store A' }),
      401,
      'INVALID_CREDENTIALS',
    );
    expect((await call(t.app, 'POST', '/v1/account/sign-in', s.token, { email, password: 'password in store B' })).json().id).toBe(
      inB.shopperId,
    );

    // A code sent in store A does not sign in to store B.
    const a = await session(t.app, store.key);
    await call(t.app, 'POST', '/v1/account/one-time-codes', a.token, { email });
    const codeFromA = await latestCode(store.storeId, email);
    const b = await session(t.app, otherStore.key);
    const answer = await call(t.app, 'POST', '/v1/account/one-time-codes/verify', b.token, { email, code: codeFromA });
    expect(answer.statusCode).toBe(401);
  });
});
