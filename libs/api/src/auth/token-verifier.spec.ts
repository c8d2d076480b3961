import { createHash } from 'node:crypto';
import { isLoopback } from './loopback';
import { roleAllows } from './principal';
import { TokenVerifier } from './token-verifier';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

describe('TokenVerifier', () => {
  const verifier = new TokenVerifier([
    { name: 'ops', role: 'operator', sha256: sha('ops-secret') },
    { name: 'ro', role: 'viewer', sha256: sha('ro-secret') },
  ]);

  it('answers the principal of a known token and nothing for others', () => {
    expect(verifier.verify('ops-secret')).toEqual({ name: 'ops', role: 'operator' });
    expect(verifier.verify('ro-secret')).toEqual({ name: 'ro', role: 'viewer' });
    expect(verifier.verify('ops-secret ')).toBeUndefined();
    expect(verifier.verify('')).toBeUndefined();
    expect(verifier.verify(sha('ops-secret'))).toBeUndefined(); // the hash itself is not a token
  });
});

describe('roles and loopback', () => {
  it('orders viewer < operator < admin', () => {
    expect(roleAllows('admin', 'operator')).toBe(true);
    expect(roleAllows('operator', 'operator')).toBe(true);
    expect(roleAllows('viewer', 'operator')).toBe(false);
    expect(roleAllows('operator', 'admin')).toBe(false);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['fe80::1', false],
    ['127.0.0.1.evil', false],
    [undefined, false],
  ])('isLoopback(%s) = %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });
});
