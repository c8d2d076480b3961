import type { Request } from 'express';
import { ProblemError } from '../http/problem';
import { ifMatchOf, versionToWrite } from './request-headers';

const req = (ifMatch?: string) => ({ headers: ifMatch === undefined ? {} : { 'if-match': ifMatch } }) as Request;
const statusOf = (fn: () => unknown): number | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof ProblemError ? err.problem.status : -1;
  }
};

describe('If-Match', () => {
  it('reads *, one tag, weak tags and lists of tags (RFC 9110)', () => {
    expect(ifMatchOf(req())).toBeUndefined();
    expect(ifMatchOf(req(' * '))).toBe('*');
    expect(ifMatchOf(req('"3"'))).toEqual({ versions: [3], header: '"3"' });
    expect(ifMatchOf(req('W/"3"'))).toEqual({ versions: [3], header: 'W/"3"' });
    expect(ifMatchOf(req('"stale", "4" ,W/"5",'))).toMatchObject({ versions: [4, 5] });
  });

  it('takes a well-formed tag it never made as matching nothing, not as a bad header', () => {
    expect(ifMatchOf(req('"stale"'))).toEqual({ versions: [], header: '"stale"' });
    expect(ifMatchOf(req('""'))).toMatchObject({ versions: [] });
    expect(ifMatchOf(req('"1234567890123456"'))).toMatchObject({ versions: [] });
  });

  it('refuses what is no entity-tag list (400 naming the header)', () => {
    for (const bad of ['v2', '3', '"3', '"a"b"', 'W/3', '"3" "4"', ',', '*, "3"']) {
      expect(statusOf(() => ifMatchOf(req(bad)))).toBe(400);
    }
  });

  it('answers the version to write, or 412 when the header matches nothing', () => {
    expect(versionToWrite('r', undefined, 4)).toBe(4);
    expect(versionToWrite('r', undefined, 0)).toBe(0);
    expect(versionToWrite('r', '*', 4)).toBe(4);
    expect(versionToWrite('r', { versions: [2, 4], header: '"2", "4"' }, 4)).toBe(4);
    expect(() => versionToWrite('r', '*', 0)).toThrow('routine "r" does not exist');
    expect(() => versionToWrite('r', { versions: [3], header: '"3"' }, 4)).toThrow('is at version 4, not 3');
    expect(() => versionToWrite('r', { versions: [], header: '"stale"' }, 4)).toThrow(
      'If-Match "stale" names no version of routine "r"; its ETag is "4"',
    );
    expect(statusOf(() => versionToWrite('r', { versions: [], header: '"stale"' }, 0))).toBe(412);
  });
});
