import { cidrContains, InvalidCidrError, parseCidr, parseCidrList } from './cidr';
import { parseIp } from './ip-address';

function range(text: string) {
  const cidr = parseCidr(text);
  if (typeof cidr === 'string') throw new Error(cidr);
  return cidr;
}

describe('parseCidr', () => {
  it.each([
    ['127.0.0.0/8', 4, 8],
    ['0.0.0.0/0', 4, 0],
    ['10.1.2.3/32', 4, 32],
    [' 192.168.0.0/16 ', 4, 16],
    ['::1/128', 6, 128],
    ['::/0', 6, 0],
    ['fc00::/7', 6, 7],
  ])('reads %p', (text, version, prefix) => {
    expect(range(text)).toMatchObject({ version, prefix });
  });

  it.each([
    ['127.0.0.1', /address\/prefix/],
    ['127.0.0.0/8/8', /address\/prefix/],
    ['127.0.0.0/x', /address\/prefix/],
    ['localhost/8', /IP address/],
    ['10.0.0.0/33', /longer than 32/],
    ['::/129', /longer than 128/],
    ['10.1.2.3/8', /host bits/],
    ['fe80::1/10', /host bits/],
  ])('refuses %p', (text, reason) => {
    expect(parseCidr(text)).toMatch(reason);
  });

  it('lists every bad entry of a list at once', () => {
    expect(() => parseCidrList(['127.0.0.0/8', 'nope', '10.0.0.1/8'])).toThrow(InvalidCidrError);
    try {
      parseCidrList(['127.0.0.0/8', 'nope', '10.0.0.1/8']);
    } catch (error) {
      expect((error as InvalidCidrError).problems).toHaveLength(2);
    }
    expect(parseCidrList([])).toEqual([]);
  });
});

describe('cidrContains', () => {
  it.each([
    ['127.0.0.0/8', '127.255.0.1', true],
    ['127.0.0.0/8', '128.0.0.1', false],
    ['0.0.0.0/0', '8.8.8.8', true],
    ['10.0.0.5/32', '10.0.0.5', true],
    ['10.0.0.5/32', '10.0.0.6', false],
    ['fc00::/7', 'fdff::1', true],
    ['fc00::/7', 'fe00::1', false],
    ['::/0', '127.0.0.1', false], // families never match each other
    ['0.0.0.0/0', '::1', false],
  ])('%s contains %s: %s', (cidr, address, expected) => {
    const ip = parseIp(address);
    if (!ip) throw new Error(address);
    expect(cidrContains(range(cidr), ip)).toBe(expected);
  });
});
