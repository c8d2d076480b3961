import type { ParkedRun } from '@drover/store';
import { compileParkedFilter, matchesParkedFilter, parkedFilterSchema } from './parked-filter';
import { decodeParkedToken, encodeParkedToken } from './parked-scan';

const T0 = Date.parse('2026-03-01T12:00:00Z');

const parked = (over: Partial<ParkedRun> = {}): ParkedRun =>
  ({
    id: 'r-1',
    routine: 'nightly',
    jobType: 'http.request',
    queue: 'default',
    source: 'schedule',
    scheduledFor: T0,
    status: 'parked',
    attempt: 2,
    maxAttempts: 2,
    createdAt: T0,
    updatedAt: T0,
    errors: [
      { attempt: 1, kind: 'error', message: 'connect ECONNREFUSED', failedAt: T0 - 1000 },
      { attempt: 2, kind: 'error', message: 'HTTP 503 Service Unavailable', failedAt: T0 },
    ],
    ...over,
  }) as ParkedRun;

const filter = (input: unknown) => compileParkedFilter(parkedFilterSchema.parse(input));

describe('parked filter', () => {
  it('selects everything when empty', () => {
    expect(matchesParkedFilter(filter({}), parked(), T0)).toBe(true);
  });

  it('matches jobType and routine exactly', () => {
    expect(matchesParkedFilter(filter({ jobType: 'http.request' }), parked(), T0)).toBe(true);
    expect(matchesParkedFilter(filter({ jobType: 'http' }), parked(), T0)).toBe(false);
    expect(matchesParkedFilter(filter({ routine: 'nightly' }), parked(), T0)).toBe(true);
    expect(matchesParkedFilter(filter({ routine: 'nightly' }), parked({ routine: null }), T0)).toBe(false);
  });

  it('matches error as a case-insensitive substring of the last error only', () => {
    expect(matchesParkedFilter(filter({ error: 'service unavail' }), parked(), T0)).toBe(true);
    expect(matchesParkedFilter(filter({ error: 'ECONNREFUSED' }), parked(), T0)).toBe(false);
    expect(matchesParkedFilter(filter({ error: 'x' }), parked({ errors: [] }), T0)).toBe(false);
    // A run parked without an attempt log still has its last error on the view.
    expect(matchesParkedFilter(filter({ error: 'lost' }), parked({ errors: [], error: { message: 'Lost' } }), T0)).toBe(
      true,
    );
  });

  it('bounds when the run was parked, both ends exclusive', () => {
    const window = filter({ after: '2026-03-01T11:00:00Z', before: '2026-03-01T13:00:00+01:00' });
    expect(matchesParkedFilter(window, parked(), T0 - 1)).toBe(true);
    expect(matchesParkedFilter(window, parked(), T0)).toBe(false);
    expect(matchesParkedFilter(window, parked(), T0 - 3_600_000)).toBe(false);
  });

  it('refuses unknown fields, bad instants and an empty window, naming the field', () => {
    const issues = (input: unknown) =>
      parkedFilterSchema.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ queue: 'x' })).toEqual([expect.stringContaining('"queue"')]);
    expect(issues({ before: 'yesterday' })).toEqual([expect.stringMatching(/^before: must be an ISO 8601 instant/)]);
    expect(issues({ after: '2026-03-02T00:00:00Z', before: '2026-03-01T00:00:00Z' })).toEqual([
      'after: must be earlier than before',
    ]);
    expect(issues({ routine: 'Not A Name' })).toEqual([
      expect.stringMatching(/^routine: "Not A Name" is not a valid name/),
    ]);
  });
});

describe('parked page tokens', () => {
  it('round-trip a cursor and reject anything else', () => {
    const at = { parkedAt: T0, id: 'replay:r-1|x' };
    expect(decodeParkedToken(encodeParkedToken(at))).toEqual(at);
    expect(decodeParkedToken('nope')).toBeUndefined();
    expect(decodeParkedToken(Buffer.from('[1.5,"a"]').toString('base64url'))).toBeUndefined();
    expect(decodeParkedToken(Buffer.from('{"a":1}').toString('base64url'))).toBeUndefined();
  });
});
