import { AddressCategory, checkAddress, classifyAddress } from './address-policy';
import { parseCidrList } from './cidr';

describe('classifyAddress', () => {
  it.each<[string, AddressCategory]>([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['169.254.0.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'], // Teredo
    ['100::1', 'reserved'], // discard-only
    ['::127.0.0.1', 'reserved'], // deprecated IPv4-compatible form
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001::1', 'public'],
    // IPv6 forms that stand for an IPv4 address are judged as that address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::', 'metadata'],
    ['2002:808:808::1', 'public'],
    ['localhost', 'invalid'],
    ['', 'invalid'],
    ['2130706433', 'invalid'],
  ])('%s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });
});

describe('checkAddress', () => {
  it.each<[string, string[], boolean]>([
    ['8.8.8.8', [], true],
    ['2606:4700:4700::1111', [], true],
    ['127.0.0.1', [], false],
    ['::1', [], false],
    ['10.0.0.1', [], false],
    ['169.254.169.254', [], false],
    ['0.0.0.0', [], false],
    ['::ffff:127.0.0.1', [], false],
    ['127.0.0.1', ['127.0.0.0/8'], true],
    ['127.0.0.1', ['127.0.0.1/32'], true],
    ['127.0.0.2', ['127.0.0.1/32'], false],
    ['::1', ['127.0.0.0/8'], false], // the IPv6 loopback needs its own range
    ['::1', ['::1/128'], true],
    ['::ffff:127.0.0.1', ['127.0.0.0/8'], true], // the embedded IPv4 is what is reached
    ['::ffff:127.0.0.1', ['::ffff:0:0/96'], true],
    ['10.1.2.3', ['10.0.0.0/8'], true],
    ['10.1.2.3', ['192.168.0.0/16'], false],
    ['fd12::1', ['fc00::/7'], true],
    // Metadata needs an exact entry: broad ranges never open it.
    ['169.254.169.254', ['169.254.0.0/16'], false],
    ['169.254.169.254', ['0.0.0.0/0'], false],
    ['100.100.100.200', ['100.64.0.0/10'], false],
    ['fd00:ec2::254', ['fc00::/7'], false],
    ['169.254.169.254', ['169.254.169.254/32'], true],
    ['::ffff:169.254.169.254', ['169.254.169.254/32'], true],
    ['169.254.1.1', ['169.254.0.0/16'], true],
    ['localhost', ['0.0.0.0/0', '::/0'], false],
  ])('%s with %j allowed: %s', (address, allow, allowed) => {
    expect(checkAddress(address, parseCidrList(allow))).toMatchObject({ address, allowed });
  });
});
