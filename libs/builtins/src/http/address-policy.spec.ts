import { addressProblem, type HostNaming } from './address-policy';

const DEFAULT: HostNaming = { by: 'default' };
const ADDRESS: HostNaming = { by: 'address' };
const NAME: HostNaming = { by: 'name', loopbackName: false };
const LOCALHOST: HostNaming = { by: 'name', loopbackName: true };

describe('addressProblem', () => {
  it.each<[string, string, HostNaming, boolean]>([
    // DROVER_HTTP_ALLOW unset: loopback only.
    ['loopback, unset', '127.0.0.1', DEFAULT, true],
    ['::1, unset', '::1', DEFAULT, true],
    ['IPv4-mapped loopback, unset', '::ffff:127.0.0.1', DEFAULT, true],
    ['public, unset', '8.8.8.8', DEFAULT, false],
    ['private, unset', '10.0.0.1', DEFAULT, false],
    // A named host name: public and private yes, loopback only for localhost, metadata never.
    ['public, named host', '93.184.216.34', NAME, true],
    ['private, named host (backup.internal -> 10.x)', '10.1.2.3', NAME, true],
    ['CGNAT, named host', '100.64.0.9', NAME, true],
    ['ULA, named host', 'fd12::1', NAME, true],
    ['loopback, named host', '127.0.0.1', NAME, false],
    ['mapped loopback, named host', '::ffff:7f00:1', NAME, false],
    ['loopback, localhost', '127.0.0.1', LOCALHOST, true],
    ['::1, localhost', '::1', LOCALHOST, true],
    ['metadata, named host', '169.254.169.254', NAME, false],
    ['metadata, localhost', '169.254.169.254', LOCALHOST, false],
    ['mapped metadata, named host', '::ffff:169.254.169.254', NAME, false],
    ['NAT64 metadata, named host', '64:ff9b::a9fe:a9fe', NAME, false],
    ['AWS IPv6 metadata, named host', 'fd00:ec2::254', NAME, false],
    ['link-local, named host', '169.254.3.4', NAME, false],
    ['IPv6 link-local, named host', 'fe80::1', NAME, false],
    ['documentation, named host', '192.0.2.10', NAME, false],
    // An entry naming the address itself.
    ['metadata, named address', '169.254.169.254', ADDRESS, true],
    ['private, named address', '10.0.0.1', ADDRESS, true],
    ['loopback, named address', '127.0.0.1', ADDRESS, true],
    // Never: these connect to the local host or to no one.
    ['0.0.0.0, named address', '0.0.0.0', ADDRESS, false],
    ['::, named address', '::', ADDRESS, false],
    ['mapped 0.0.0.0, named host', '::ffff:0.0.0.0', NAME, false],
    ['multicast, named address', '224.0.0.1', ADDRESS, false],
    ['0.0.0.0, unset', '0.0.0.0', DEFAULT, false],
  ])('%s', (_, address, naming, allowed) => {
    expect(addressProblem(naming, address) === undefined).toBe(allowed);
  });

  it('says what the address is and what would allow it', () => {
    expect(addressProblem(NAME, '169.254.169.254')).toBe(
      '169.254.169.254 is cloud metadata (169.254.169.254/32), which only an entry naming that address itself allows',
    );
    expect(addressProblem(NAME, '127.0.0.1')).toBe(
      '127.0.0.1 is loopback (127.0.0.0/8), which only an entry naming localhost or the address allows',
    );
    expect(addressProblem(DEFAULT, '10.0.0.1')).toBe(
      '10.0.0.1 is private (10.0.0.0/8), and only loopback is allowed while DROVER_HTTP_ALLOW is unset',
    );
    expect(addressProblem(ADDRESS, '0.0.0.0')).toBe('0.0.0.0 is "this network" (0.0.0.0/8), which is never called');
  });
});
