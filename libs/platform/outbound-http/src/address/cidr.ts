import { bitsOf, IpAddress, parseIp } from './ip-address';

/** A CIDR range; `network` has no host bits set. */
export interface Cidr {
  readonly version: 4 | 6;
  readonly network: bigint;
  readonly prefix: number;
  /** The text it was parsed from, for messages. */
  readonly text: string;
}

export class InvalidCidrError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid CIDR ranges: ${problems.join('; ')}`);
    this.name = 'InvalidCidrError';
  }
}

/** Parses `address/prefix`; the reason when it is not one. */
export function parseCidr(text: string): Cidr | string {
  const [addressText, prefixText, ...rest] = text.trim().split('/');
  if (prefixText === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefixText)) {
    return `"${text}" is not address/prefix`;
  }
  const address = parseIp(addressText);
  if (address === undefined) return `"${text}" does not start with an IP address`;
  const prefix = Number(prefixText);
  const bits = bitsOf(address.version);
  if (prefix > bits) return `"${text}" has a prefix longer than ${bits}`;
  const network = mask(address.value, prefix, bits);
  // A typo like 10.1.2.3/8 most likely meant a narrower range than it grants: refuse to guess.
  if (network !== address.value) return `"${text}" has host bits set`;
  return { version: address.version, network, prefix, text: text.trim() };
}

/** All ranges, or an error listing every entry that is not one. */
export function parseCidrList(entries: readonly string[]): Cidr[] {
  const parsed = entries.map(parseCidr);
  const problems = parsed.filter((entry): entry is string => typeof entry === 'string');
  if (problems.length > 0) throw new InvalidCidrError(problems);
  return parsed as Cidr[];
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.version !== address.version) return false;
  return mask(address.value, cidr.prefix, bitsOf(cidr.version)) === cidr.network;
}

/** Whether the range is a single address (/32, /128). */
export function isSingleAddress(cidr: Cidr): boolean {
  return cidr.prefix === bitsOf(cidr.version);
}

function mask(value: bigint, prefix: number, bits: number): bigint {
  const hostBits = BigInt(bits - prefix);
  return (value >> hostBits) << hostBits;
}
