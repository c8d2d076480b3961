import { classifyAddress, type AddressKind } from './ip-ranges';

describe('classifyAddress', () => {
  it.each<[string, AddressKind]>([
    // IPv4
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.1', 'public'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    // IPv6
    ['2606:4700:4700::1111', 'public'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
    ['fd20:ce::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['[::1]', 'loopback'],
    // IPv4 carried in IPv6: judged by the IPv4 address
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['::127.0.0.1', 'loopback'],
    ['::a9fe:a9fe', 'metadata'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['64:ff9b:1::1', 'private'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:808:808::1', 'public'],
    // not an address at all
    ['example.com', 'reserved'],
    ['', 'reserved'],
    ['1.2.3', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind);
  });

  it('names the range, and the IPv4 address an IPv6 form carries', () => {
    expect(classifyAddress('169.254.169.254').label).toBe('cloud metadata (169.254.169.254/32)');
    expect(classifyAddress('::ffff:a9fe:a9fe').label).toBe(
      'cloud metadata (169.254.169.254/32), as IPv4-mapped IPv6 169.254.169.254',
    );
    expect(classifyAddress('100.64.0.1').label).toBe('shared address space (CGNAT) (100.64.0.0/10)');
  });
});
