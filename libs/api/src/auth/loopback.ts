import { isIP } from 'node:net';

/** True for a peer address on the loopback interface (IPv4 127/8, ::1, and IPv4-mapped forms). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(a) === 4) return a.startsWith('127.');
  return a === '::1';
}
