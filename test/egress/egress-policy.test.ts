import { describe, expect, it } from 'vitest';
import { EgressPolicy, EgressRefused, type Lookup, parseEgressEntry, parseEgressSetting } from '../../src/infra/egress/egress-policy.js';

/** What a host resolves to, for names whose answers no real resolver here gives (a public name pointing inwards). */
function answering(records: Record<string, string[]>): Lookup {
  return async (host) => {
    const addresses = records[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function refusalOf(policy: EgressPolicy, host: string): Promise<EgressRefused> {
  const error = await policy.resolve(host).then(
    (resolved) => new Error(`${host} was allowed (${resolved.address})`),
    (refused: unknown) => refused,
  );
  expect(error).toBeInstanceOf(EgressRefused);
  return error as EgressRefused;
}

describe('egress policy (DATAHUB_ALLOWED_HOSTS)', () => {
  it('reads public, addresses, ranges, host names and *.domain, and says what it cannot read', () => {
    expect(parseEgressEntry(' PUBLIC ')).toEqual({ kind: 'public' });
    expect(parseEgressEntry('127.0.0.1')).toEqual({ kind: 'address', address: '127.0.0.1', family: 'ipv4', prefix: 32 });
    expect(parseEgressEntry('10.20.0.0/16')).toEqual({ kind: 'address', address: '10.20.0.0', family: 'ipv4', prefix: 16 });
    expect(parseEgressEntry('fd00::/8')).toEqual({ kind: 'address', address: 'fd00::', family: 'ipv6', prefix: 8 });
    expect(parseEgressEntry('SFTP.Partner.example')).toEqual({ kind: 'name', name: 'sftp.partner.example' });
    expect(parseEgressEntry('*.partner.example')).toEqual({ kind: 'domain', suffix: '.partner.example' });
    for (const bad of ['10.0.0.0/33', '::1/129', '10.0.0.0/8/1', '10.0.0.0/x', 'https://sftp.example', 'a b', '*.', '-bad.example']) {
      expect(parseEgressEntry(bad), bad).toEqual(expect.stringContaining(bad.trim()));
    }
    expect(parseEgressSetting('public, 127.0.0.1')).toEqual({
      entries: [{ kind: 'public' }, { kind: 'address', address: '127.0.0.1', family: 'ipv4', prefix: 32 }],
    });
    expect(parseEgressSetting(' , ')).toEqual({ errors: [expect.stringContaining('lists nothing')] });
    expect(parseEgressSetting('public,nope/1,10.0.0.0/99')).toEqual({ errors: [expect.any(String), expect.any(String)] });
  });

  it('by default allows public addresses and refuses loopback, private, link-local, metadata and mapped ones', async () => {
    const policy = EgressPolicy.of('public');
    await expect(policy.resolve('8.8.8.8')).resolves.toEqual({ address: '8.8.8.8', family: 4 });
    await expect(policy.resolve('[2606:4700::1111]')).resolves.toEqual({ address: '2606:4700::1111', family: 6 });
    for (const host of [
      '127.0.0.1',
      '127.1.2.3',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '[::1]',
      '::',
      'fe80::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
    ]) {
      const refused = await refusalOf(policy, host);
      expect(refused.reason, host).toBe('not_allowed');
      expect(refused.message).toContain('DATAHUB_ALLOWED_HOSTS');
    }
  });

  it('checks names after resolving them: localhost through the real resolver, and every address of a name', async () => {
    expect((await refusalOf(EgressPolicy.of('public'), 'localhost')).reason).toBe('not_allowed');
    await expect(EgressPolicy.of('public,127.0.0.1,::1').resolve('localhost')).resolves.toMatchObject({
      address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
    });

    const lookup = answering({
      'files.example': ['93.184.216.34'],
      'inward.example': ['10.0.0.5'],
      'mixed.example': ['93.184.216.34', '169.254.169.254'],
    });
    const policy = EgressPolicy.of('public', lookup);
    await expect(policy.resolve('files.example')).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    const inward = await refusalOf(policy, 'inward.example');
    expect([inward.reason, inward.address]).toEqual(['not_allowed', '10.0.0.5']);
    expect(inward.message).toContain('inward.example (10.0.0.5)');
    expect((await refusalOf(policy, 'mixed.example')).address).toBe('169.254.169.254');
    expect((await refusalOf(policy, 'nowhere.example')).reason).toBe('unresolvable');
  });

  it('allows what is listed, and without public only that', async () => {
    const lookup = answering({
      'sftp.partner.example': ['10.9.0.4'],
      'eu.files.partner.example': ['10.9.0.5'],
      'files.example': ['93.184.216.34'],
    });
    const listed = EgressPolicy.of('10.20.0.0/16, sftp.partner.example, *.files.partner.example', lookup);
    await expect(listed.resolve('10.20.3.4')).resolves.toEqual({ address: '10.20.3.4', family: 4 });
    await expect(listed.resolve('SFTP.partner.example')).resolves.toEqual({ address: '10.9.0.4', family: 4 });
    await expect(listed.resolve('eu.files.partner.example')).resolves.toEqual({ address: '10.9.0.5', family: 4 });
    expect((await refusalOf(listed, '10.21.0.1')).reason).toBe('not_allowed');
    expect((await refusalOf(listed, 'files.example')).reason).toBe('not_allowed');
    expect((await refusalOf(listed, '8.8.8.8')).reason).toBe('not_allowed');
    // A listed IPv4 range also covers the same addresses written as IPv4-mapped IPv6.
    await expect(listed.resolve('::ffff:10.20.0.9')).resolves.toEqual({ address: '::ffff:10.20.0.9', family: 6 });
  });

  it('gives sockets a lookup that connects only to checked addresses, one or all at a time', async () => {
    const policy = EgressPolicy.of('public', answering({ 'files.example': ['93.184.216.34'], 'inward.example': ['10.0.0.5'] }));
    const lookup = policy.lookupFunction();
    const ask = (host: string, all: boolean) =>
      new Promise<{ error: NodeJS.ErrnoException | null; answer: unknown }>((resolve) =>
        lookup(host, { all }, (error, address, family) => resolve({ error, answer: all ? address : [address, family] })),
      );
    expect(await ask('files.example', false)).toEqual({ error: null, answer: ['93.184.216.34', 4] });
    expect(await ask('files.example', true)).toEqual({ error: null, answer: [{ address: '93.184.216.34', family: 4 }] });
    expect((await ask('inward.example', false)).error?.code).toBe('EGRESS_REFUSED');
    expect((await ask('nowhere.example', true)).error?.code).toBe('ENOTFOUND');
  });
});
