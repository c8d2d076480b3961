import { isIPv4, isIPv6 } from 'node:net';

/**
 * What an IP address is, for outbound HTTP (docs/security.md): `public` is the Internet; the others
 * reach the worker itself, its network, its cloud provider's metadata service, or nothing at all.
 */
export type AddressKind =
  'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved' | 'unspecified' | 'multicast';

export interface AddressClass {
  kind: AddressKind;
  /** Human words with the matching range, e.g. `cloud metadata (169.254.169.254/32)`. */
  label: string;
}

type Bytes = number[];

interface Range {
  prefix: Bytes;
  bits: number;
  kind: AddressKind | 'embedded-v4';
  name: string;
  cidr: string;
  /** For `embedded-v4`: where the IPv4 address sits in the 16 bytes. */
  at?: number;
}

/** Most specific first: the first range that holds the address wins. */
const V4: [string, AddressKind, string][] = [
  ['169.254.169.254/32', 'metadata', 'cloud metadata'],
  ['169.254.170.2/32', 'metadata', 'cloud metadata (AWS ECS task)'],
  ['100.100.100.200/32', 'metadata', 'cloud metadata (Alibaba)'],
  ['168.63.129.16/32', 'metadata', 'cloud host endpoint (Azure WireServer)'],
  ['0.0.0.0/8', 'unspecified', '"this network"'],
  ['10.0.0.0/8', 'private', 'private'],
  ['100.64.0.0/10', 'private', 'shared address space (CGNAT)'],
  ['127.0.0.0/8', 'loopback', 'loopback'],
  ['169.254.0.0/16', 'link-local', 'link-local'],
  ['172.16.0.0/12', 'private', 'private'],
  ['192.0.0.0/24', 'reserved', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'reserved', 'documentation'],
  ['192.88.99.0/24', 'reserved', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private', 'private'],
  ['198.18.0.0/15', 'reserved', 'benchmarking'],
  ['198.51.100.0/24', 'reserved', 'documentation'],
  ['203.0.113.0/24', 'reserved', 'documentation'],
  ['224.0.0.0/4', 'multicast', 'multicast'],
  ['240.0.0.0/4', 'reserved', 'reserved (and broadcast)'],
];

/** `embedded-v4` ranges carry an IPv4 address a gateway or the kernel turns into an IPv4 connection. */
const V6: [string, AddressKind | 'embedded-v4', string, number?][] = [
  ['::/128', 'unspecified', 'unspecified'],
  ['::1/128', 'loopback', 'loopback'],
  ['::ffff:0:0/96', 'embedded-v4', 'IPv4-mapped', 12],
  ['::ffff:0:0:0/96', 'embedded-v4', 'IPv4-translated', 12],
  ['::/96', 'embedded-v4', 'IPv4-compatible', 12],
  ['64:ff9b::/96', 'embedded-v4', 'NAT64', 12],
  ['64:ff9b:1::/48', 'private', 'local-use NAT64'],
  ['100::/64', 'reserved', 'discard-only'],
  ['2001:db8::/32', 'reserved', 'documentation'],
  ['2001::/32', 'reserved', 'Teredo'],
  ['2002::/16', 'embedded-v4', '6to4', 2],
  ['fd00:ec2::254/128', 'metadata', 'cloud metadata (AWS)'],
  ['fd20:ce::254/128', 'metadata', 'cloud metadata (GCP)'],
  ['fc00::/7', 'private', 'unique local'],
  ['fe80::/10', 'link-local', 'link-local'],
  ['fec0::/10', 'private', 'site-local'],
  ['ff00::/8', 'multicast', 'multicast'],
];

function v4Bytes(s: string): Bytes | undefined {
  if (!isIPv4(s)) return undefined;
  return s.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (a zone id such as `%eth0` is dropped). */
function v6Bytes(input: string): Bytes | undefined {
  const s = input.replace(/%.*$/, '');
  if (!isIPv6(s)) return undefined;
  let text = s;
  let tail: Bytes = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail = v4Bytes(dotted[1]!) ?? [];
    text = text.slice(0, -dotted[1]!.length) + '0:0';
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const r = rest === undefined ? [] : groups(rest);
  const all = rest === undefined ? h : [...h, ...Array<number>(8 - h.length - r.length).fill(0), ...r];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (dotted) bytes.splice(12, 4, ...tail);
  return bytes;
}

function parseRange(cidr: string, kind: Range['kind'], name: string, at?: number): Range {
  const [addr, bits] = cidr.split('/') as [string, string];
  return {
    prefix: v4Bytes(addr) ?? v6Bytes(addr)!,
    bits: Number(bits),
    kind,
    name,
    cidr,
    ...(at !== undefined && { at }),
  };
}

const V4_RANGES = V4.map(([c, k, n]) => parseRange(c, k, n));
const V6_RANGES = V6.map(([c, k, n, at]) => parseRange(c, k, n, at));

function holds(range: Range, bytes: Bytes): boolean {
  for (let bit = 0; bit < range.bits; bit += 8) {
    const left = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (range.prefix[bit / 8]! & mask)) return false;
  }
  return true;
}

function classifyV4(bytes: Bytes): AddressClass {
  const range = V4_RANGES.find((r) => holds(r, bytes));
  if (!range) return { kind: 'public', label: 'public' };
  return { kind: range.kind as AddressKind, label: `${range.name} (${range.cidr})` };
}

/**
 * Classifies an IP address as the resolver or a URL gives it: dotted IPv4 or any IPv6 spelling,
 * including IPv4-mapped (`::ffff:169.254.169.254`, `::ffff:a9fe:a9fe`), NAT64 and 6to4 forms, which
 * are judged by the IPv4 address they carry. Anything that is not an IP address is `reserved`.
 */
export function classifyAddress(address: string): AddressClass {
  const v4 = v4Bytes(address);
  if (v4) return classifyV4(v4);
  const v6 = v6Bytes(address.replace(/^\[(.*)\]$/, '$1'));
  if (!v6) return { kind: 'reserved', label: 'not an IP address' };
  const range = V6_RANGES.find((r) => holds(r, v6));
  if (!range) return { kind: 'public', label: 'public' };
  if (range.kind !== 'embedded-v4') return { kind: range.kind, label: `${range.name} (${range.cidr})` };
  const inner = v6.slice(range.at!, range.at! + 4);
  const c = classifyV4(inner);
  return { kind: c.kind, label: `${c.label}, as ${range.name} IPv6 ${inner.join('.')}` };
}
