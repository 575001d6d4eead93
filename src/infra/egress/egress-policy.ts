import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';

/**
 * Where the data hub may connect (`DATAHUB_ALLOWED_HOSTS`), checked after DNS resolution so that a name
 * cannot lead the service into its own network: the dashboard must not become a way to reach the
 * database, a cloud metadata endpoint or anything else only the service's host can see.
 *
 * The setting is a comma-separated list of entries:
 * - `public`: any address outside the special-purpose ranges below (the default, alone);
 * - an address (`127.0.0.1`, `::1`) or a range in CIDR notation (`10.20.0.0/16`, `fd00::/8`);
 * - a host name (`sftp.partner.example`) or every name under a domain (`*.partner.example`): allowed
 *   whatever it resolves to, so list a name only when its DNS is trusted.
 * Without `public`, only what is listed is allowed.
 */
export type EgressEntry =
  | { kind: 'public' }
  | { kind: 'address'; address: string; family: 'ipv4' | 'ipv6'; prefix: number }
  | { kind: 'name'; name: string }
  | { kind: 'domain'; suffix: string };

/** Addresses that are not on the public internet (IANA's special-purpose registries), refused unless listed. */
const NOT_PUBLIC: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (cloud metadata at 169.254.169.254)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, and the broadcast address
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b::', 96, 'ipv6'], // NAT64: an IPv4 address inside, possibly a private one
  ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 23, 'ipv6'], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4: an IPv4 address inside
  ['fc00::', 7, 'ipv6'], // unique local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const NOT_PUBLIC_LIST = new BlockList();
for (const [address, prefix, family] of NOT_PUBLIC) NOT_PUBLIC_LIST.addSubnet(address, prefix, family);

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** One entry of the setting, or a sentence saying why it is not one. */
export function parseEgressEntry(text: string): EgressEntry | string {
  const entry = text.trim().toLowerCase();
  if (entry === 'public') return { kind: 'public' };
  const [address, prefixText, extra] = entry.split('/');
  const version = isIP(address);
  if (version !== 0) {
    const family = version === 4 ? 'ipv4' : 'ipv6';
    const widest = version === 4 ? 32 : 128;
    if (extra !== undefined) return `"${text.trim()}" is not an address or a range`;
    const prefix = prefixText === undefined ? widest : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (!(prefix >= 0 && prefix <= widest)) return `"${text.trim()}" has a prefix length outside 0–${widest}`;
    return { kind: 'address', address, family, prefix };
  }
  if (entry.startsWith('*.') && HOST_NAME.test(entry.slice(2))) return { kind: 'domain', suffix: entry.slice(1) };
  if (HOST_NAME.test(entry)) return { kind: 'name', name: entry };
  return `"${text.trim()}" is not public, an address, a range, a host name or *.domain`;
}

/** The entries of a whole setting, or the reasons it is refused (an empty list is refused: it would allow nothing). */
export function parseEgressSetting(value: string): { entries: EgressEntry[] } | { errors: string[] } {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.every((part) => part === '')) return { errors: ['lists nothing: give public, addresses, ranges or host names'] };
  const parsed = parts.filter((part) => part !== '').map(parseEgressEntry);
  const errors = parsed.filter((entry): entry is string => typeof entry === 'string');
  return errors.length > 0 ? { errors } : { entries: parsed as EgressEntry[] };
}

export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/** Why a host may not be connected to: it resolved to an address not allowed, or not at all. */
export class EgressRefused extends Error {
  constructor(
    readonly reason: 'not_allowed' | 'unresolvable',
    readonly host: string,
    readonly address?: string,
  ) {
    super(
      reason === 'not_allowed'
        ? `${host}${address && address !== host ? ` (${address})` : ''} is not an address the data hub may connect to (DATAHUB_ALLOWED_HOSTS)`
        : `${host} could not be resolved`,
    );
  }
}

export class EgressPolicy {
  private readonly allowsPublic: boolean;
  private readonly ranges = new BlockList();
  private readonly names = new Set<string>();
  private readonly suffixes: string[] = [];

  constructor(
    entries: EgressEntry[],
    private readonly lookup: Lookup = systemLookup,
  ) {
    this.allowsPublic = entries.some((entry) => entry.kind === 'public');
    for (const entry of entries) {
      if (entry.kind === 'address') this.ranges.addSubnet(entry.address, entry.prefix, entry.family);
      else if (entry.kind === 'name') this.names.add(entry.name);
      else if (entry.kind === 'domain') this.suffixes.push(entry.suffix);
    }
  }

  /** The policy of a setting already validated at start-up (AppConfig). */
  static of(setting: string, lookup?: Lookup): EgressPolicy {
    const parsed = parseEgressSetting(setting);
    if ('errors' in parsed) throw new Error(`DATAHUB_ALLOWED_HOSTS: ${parsed.errors.join('; ')}`);
    return new EgressPolicy(parsed.entries, lookup);
  }

  /**
   * The address to connect to for `host`: resolved once and checked, so the connection goes to the
   * address that was checked (a second lookup could answer otherwise). Every address the name resolves to
   * must be allowed, not only the first. Throws EgressRefused.
   */
  async resolve(host: string): Promise<{ address: string; family: 4 | 6 }> {
    const name = host
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
    const literal = isIP(name);
    let addresses: { address: string; family: number }[];
    if (literal !== 0) addresses = [{ address: name, family: literal }];
    else {
      try {
        addresses = await this.lookup(name);
      } catch {
        throw new EgressRefused('unresolvable', host);
      }
      if (addresses.length === 0) throw new EgressRefused('unresolvable', host);
    }
    if (literal !== 0 || !this.namesHost(name)) {
      for (const { address, family } of addresses) {
        if (!this.allowsAddress(address, family === 6 ? 'ipv6' : 'ipv4')) throw new EgressRefused('not_allowed', host, address);
      }
    }
    return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
  }

  /**
   * `resolve` in the shape of net's `lookup` option, for clients that open their own sockets (the S3
   * SDK's HTTP agents): every connection they make goes to an address this policy checked.
   */
  lookupFunction(): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname).then(
        ({ address, family }) => (options.all ? callback(null, [{ address, family }]) : callback(null, address, family)),
        (error: Error) =>
          callback(
            Object.assign(error, {
              code: error instanceof EgressRefused && error.reason === 'not_allowed' ? 'EGRESS_REFUSED' : 'ENOTFOUND',
            }),
            '',
          ),
      );
    };
  }

  private namesHost(name: string): boolean {
    return this.names.has(name) || this.suffixes.some((suffix) => name.endsWith(suffix));
  }

  private allowsAddress(address: string, family: 'ipv4' | 'ipv6'): boolean {
    if (this.ranges.check(address, family)) return true;
    return this.allowsPublic && !NOT_PUBLIC_LIST.check(address, family);
  }
}
