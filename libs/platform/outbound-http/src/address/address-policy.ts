import { Cidr, cidrContains, isSingleAddress, parseCidr } from './cidr';
import { IpAddress, parseIp } from './ip-address';

/** What an address is; only `public` ones are reachable without an allow-listed range. */
export type AddressCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  /** Not an IP address at all: refused, so that a parser gap can never open a hole. */
  | 'invalid';

export interface AddressVerdict {
  readonly address: string;
  readonly category: AddressCategory;
  readonly allowed: boolean;
}

interface Rule {
  readonly cidr: Cidr;
  readonly category: AddressCategory;
}

function rules(entries: ReadonlyArray<readonly [string, AddressCategory]>): readonly Rule[] {
  return entries.map(([text, category]) => ({ cidr: knownRange(text), category }));
}

function knownRange(text: string): Cidr {
  const cidr = parseCidr(text);
  if (typeof cidr === 'string') throw new Error(`bad built-in range: ${cidr}`);
  return cidr;
}

/** First match wins, so the narrower ranges come first. IANA special-purpose registry, RFC 6890. */
const IPV4_RULES = rules([
  ['169.254.169.254/32', 'metadata'], // AWS, GCP, Azure, OpenStack, DigitalOcean...
  ['100.100.100.200/32', 'metadata'], // Alibaba Cloud
  ['0.0.0.0/8', 'unspecified'], // "this network": Linux connects 0.0.0.0 to the local host
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['169.254.0.0/16', 'link_local'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'reserved'], // documentation
  ['198.51.100.0/24', 'reserved'], // documentation
  ['203.0.113.0/24', 'reserved'], // documentation
  ['198.18.0.0/15', 'reserved'], // benchmarking
  ['192.88.99.0/24', 'reserved'], // former 6to4 relay anycast
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

/** Anything outside these is reserved: global unicast is 2000::/3 only. */
const IPV6_RULES = rules([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fd00:ec2::254/128', 'metadata'], // AWS (IPv6 instance metadata)
  ['64:ff9b:1::/48', 'private'], // local-use NAT64
  ['fc00::/7', 'private'], // unique local
  ['fec0::/10', 'private'], // deprecated site-local, still routed by some stacks
  ['fe80::/10', 'link_local'],
  ['ff00::/8', 'multicast'],
  ['2001::/23', 'reserved'], // IETF protocol assignments, Teredo among them
  ['2001:db8::/32', 'reserved'], // documentation
  ['3fff::/20', 'reserved'], // documentation
  ['2000::/3', 'public'],
]);

/**
 * IPv6 forms that carry an IPv4 destination: the packet ends up at (or is relayed by)
 * that IPv4 address, so it is judged as the IPv4 one.
 */
const EMBEDDED_IPV4: ReadonlyArray<{ readonly cidr: Cidr; readonly shift: bigint }> = [
  { cidr: knownRange('::ffff:0:0/96'), shift: 0n }, // IPv4-mapped
  { cidr: knownRange('::ffff:0:0:0/96'), shift: 0n }, // IPv4-translated (SIIT)
  { cidr: knownRange('64:ff9b::/96'), shift: 0n }, // NAT64 well-known prefix
  { cidr: knownRange('2002::/16'), shift: 80n }, // 6to4: 2002:AABB:CCDD::/48
];

/** The IPv4 address an IPv6 one stands for, if it is one of the embedding forms. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.version !== 6) return undefined;
  const form = EMBEDDED_IPV4.find(({ cidr }) => cidrContains(cidr, address));
  return form && { version: 4, value: (address.value >> form.shift) & 0xffffffffn };
}

function categoryOf(address: IpAddress): AddressCategory {
  const embedded = embeddedIpv4(address);
  if (embedded) return categoryOf(embedded);
  const table = address.version === 4 ? IPV4_RULES : IPV6_RULES;
  const fallback: AddressCategory = address.version === 4 ? 'public' : 'reserved';
  return table.find(({ cidr }) => cidrContains(cidr, address))?.category ?? fallback;
}

export function classifyAddress(text: string): AddressCategory {
  const address = parseIp(text);
  return address ? categoryOf(address) : 'invalid';
}

/**
 * Allowed iff public, or inside an allowed range. A metadata address needs a range
 * that names exactly it (/32, /128): it hands out cloud credentials, and broad
 * ranges such as 100.64.0.0/10 (Tailscale) or 169.254.0.0/16 would open it by accident.
 */
export function checkAddress(text: string, allow: readonly Cidr[]): AddressVerdict {
  const address = parseIp(text);
  if (!address) return { address: text, category: 'invalid', allowed: false };
  const category = categoryOf(address);
  if (category === 'public') return { address: text, category, allowed: true };
  const subjects = [address, embeddedIpv4(address)].filter((a): a is IpAddress => a !== undefined);
  const ranges = category === 'metadata' ? allow.filter(isSingleAddress) : allow;
  const allowed = ranges.some((range) => subjects.some((subject) => cidrContains(range, subject)));
  return { address: text, category, allowed };
}
