import { isIP } from 'node:net';
import { parseIp } from './ip-address';

describe('parseIp', () => {
  it.each([
    ['0.0.0.0', 4, 0n],
    ['127.0.0.1', 4, 0x7f000001n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['1::', 6, 1n << 112n],
    ['2001:db8::8:800:200c:417a', 6, 0x20010db8000000000008_0800200c417an],
    ['2001:DB8:0:0:8:800:200C:417A', 6, 0x20010db8000000000008_0800200c417an],
    ['::ffff:127.0.0.1', 6, 0xffff7f000001n],
    ['::ffff:7f00:1', 6, 0xffff7f000001n],
    ['fe80::1%eth0', 6, (0xfe80n << 112n) | 1n],
    ['1:2:3:4:5:6:7:8', 6, 0x00010002000300040005000600070008n],
    ['1:2:3:4:5:6:1.2.3.4', 6, 0x00010002000300040005000601020304n],
  ])('reads %s', (text, version, value) => {
    expect(parseIp(text)).toEqual({ version, value });
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '01.2.3.4', // leading zero: octal to some parsers
    '0x7f.0.0.1',
    '2130706433',
    '1.2.3.-4',
    ':::',
    '1::2::3',
    ':1',
    '1:',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::8', // "::" must stand for at least one group
    '12345::',
    'g::',
    '1.2.3.4::', // dotted IPv4 only at the end
    '::1.2.3',
    'localhost',
  ])('refuses %p', (text) => {
    expect(parseIp(text)).toBeUndefined();
  });
});

describe('parseIp against net.isIP', () => {
  // net.connect skips the lookup for whatever isIP accepts; the guard checks those itself,
  // and one it could not parse would be refused as invalid rather than let through.
  it.each(['127.0.0.1', '::', '::1', '::ffff:127.0.0.1', '::ffff:0:127.0.0.1', '64:ff9b::1.2.3.4', 'fe80::1%eth0', 'FE80::A', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8'])(
    'parses %s, which Node takes for an IP',
    (text) => {
      expect(isIP(text)).not.toBe(0);
      expect(parseIp(text)).toBeDefined();
    },
  );
});
