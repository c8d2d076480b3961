import { decodePageToken, encodePageToken } from './page-token';

describe('routine list page tokens', () => {
  it('round-trips a routine name', () => {
    for (const name of ['a', 'nightly-backup', 'x.y_z-9', 'z'.repeat(128)]) {
      expect(decodePageToken(encodePageToken(name))).toBe(name);
    }
  });

  it('refuses what this API did not make', () => {
    for (const token of [
      '',
      'not base64!',
      encodePageToken('Not A Name'),
      `${encodePageToken('ab')}=`,
      'a'.repeat(401),
    ]) {
      expect(decodePageToken(token)).toBeUndefined();
    }
  });
});
