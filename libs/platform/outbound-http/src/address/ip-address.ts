/**
 * IP addresses as numbers, so that ranges are plain bit comparisons. IPv4 is a
 * 32-bit value, IPv6 a 128-bit one; the two are never compared with each other
 * (an IPv4-mapped IPv6 address is unwrapped by the policy, not here).
 */
export interface IpAddress {
  readonly version: 4 | 6;
  readonly value: bigint;
}

export const IPV4_BITS = 32;
export const IPV6_BITS = 128;

export function bitsOf(version: 4 | 6): number {
  return version === 4 ? IPV4_BITS : IPV6_BITS;
}

/** Strict dotted decimal, as resolvers and the WHATWG URL parser print it: no octal, hex or short forms. */
export function parseIpv4(text: string): IpAddress | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return { version: 4, value };
}

/** RFC 4291 text forms, including `::` and a trailing dotted IPv4; a zone (`%eth0`) is ignored. */
export function parseIpv6(text: string): IpAddress | undefined {
  const withoutZone = text.split('%', 1)[0];
  const halves = withoutZone.split('::');
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  const head = groupsOf(halves[0], !compressed);
  const tail = compressed ? groupsOf(halves[1], true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (compressed ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<number>(compressed ? missing : 0).fill(0), ...tail];
  const value = groups.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
  return { version: 6, value };
}

/** 16-bit groups of one side of `::`; a dotted IPv4 may only end the address and counts as two groups. */
function groupsOf(side: string, endsAddress: boolean): number[] | undefined {
  if (side === '') return [];
  const fields = side.split(':');
  const groups: number[] = [];
  for (const [index, field] of fields.entries()) {
    if (endsAddress && index === fields.length - 1 && field.includes('.')) {
      const ipv4 = parseIpv4(field);
      if (ipv4 === undefined) return undefined;
      groups.push(Number(ipv4.value >> 16n), Number(ipv4.value & 0xffffn));
    } else if (/^[0-9a-fA-F]{1,4}$/.test(field)) {
      groups.push(parseInt(field, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

export function parseIp(text: string): IpAddress | undefined {
  return text.includes(':') ? parseIpv6(text) : parseIpv4(text);
}
