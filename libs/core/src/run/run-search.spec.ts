import { parseRunSearch, parseTimeBound, payloadFieldEquals, runMatches, type SearchableRun } from './run-search';

describe('finding a run', () => {
  const now = Date.parse('2026-11-26T08:00:00.000Z');

  it.each([
    ['2h', now - 7_200_000],
    ['30m', now - 1_800_000],
    ['1h30m', now - 5_400_000],
    ['7d', now - 7 * 86_400_000],
    [' 90s ', now - 90_000],
    ['2026-11-25T06:00:00Z', Date.parse('2026-11-25T06:00:00Z')],
    ['2026-11-25T07:00:00+01:00', Date.parse('2026-11-25T06:00:00Z')],
    ['2026-11-25', Date.parse('2026-11-25T00:00:00Z')],
    ['-2h', now - 7_200_000],
    ['today 06:00', Date.parse('2026-11-26T06:00:00Z')],
  ])('reads the time bound %s', (text, at) => {
    expect(parseTimeBound(text, now)).toBe(at);
  });

  it.each(['', 'yesterday', '2 hours', '250', '2h ago', '2026-11-25T06:00:00', '11/25/2026', '2026-13-45', '2x'])(
    'refuses the time bound %p',
    (text) => {
      expect(parseTimeBound(text, now)).toBeUndefined();
    },
  );

  it('reads a search: field=value searches the payload, anything else is text', () => {
    expect(parseRunSearch('customer.id=42')).toEqual({ kind: 'field', path: ['customer', 'id'], value: '42' });
    expect(parseRunSearch(' invoice = 2026-11 ')).toEqual({ kind: 'field', path: ['invoice'], value: '2026-11' });
    expect(parseRunSearch('a=b=c')).toEqual({ kind: 'field', path: ['a'], value: 'b=c' });
    expect(parseRunSearch('connect ECONNREFUSED')).toEqual({ kind: 'text', text: 'connect ECONNREFUSED' });
    expect(parseRunSearch('status code = 500')).toEqual({ kind: 'text', text: 'status code = 500' });
    expect(parseRunSearch('=x')).toEqual({ kind: 'text', text: '=x' });
    expect(parseRunSearch('   ')).toBeUndefined();
  });

  it('matches a payload field by path, scalars by their JSON text, arrays by any element', () => {
    const payload = {
      customer: { id: 42, tier: 'gold', active: true, note: null },
      tags: ['vip', 'eu'],
      items: [{ sku: 'A1' }],
    };
    expect(payloadFieldEquals(payload, ['customer', 'id'], '42')).toBe(true);
    expect(payloadFieldEquals(payload, ['customer', 'tier'], 'gold')).toBe(true);
    expect(payloadFieldEquals(payload, ['customer', 'tier'], 'Gold')).toBe(false);
    expect(payloadFieldEquals(payload, ['customer', 'active'], 'true')).toBe(true);
    expect(payloadFieldEquals(payload, ['customer', 'note'], 'null')).toBe(true);
    expect(payloadFieldEquals(payload, ['tags'], 'vip')).toBe(true);
    expect(payloadFieldEquals(payload, ['items', '0', 'sku'], 'A1')).toBe(true);
    expect(payloadFieldEquals(payload, ['customer'], '[object Object]')).toBe(false);
    expect(payloadFieldEquals(payload, ['customer', 'id', 'x'], '42')).toBe(false);
    expect(payloadFieldEquals(payload, ['missing'], 'undefined')).toBe(false);
    expect(payloadFieldEquals(undefined, ['customer'], 'x')).toBe(false);
    // Only the payload's own fields: never the prototype's.
    expect(payloadFieldEquals({}, ['constructor', 'name'], 'Object')).toBe(false);
  });

  const run: SearchableRun = {
    id: 'a-m1x2y3z4-k3j5h7g9',
    createdAt: now - 60_000,
    payload: { invoice: 42 },
    error: { message: 'HTTP 503 from billing' },
    errors: [{ message: 'connect ECONNREFUSED 127.0.0.1:9' }, { message: 'HTTP 503 from billing' }],
  };

  it('matches text against the run id (prefix) and every error message (substring), ignoring case', () => {
    const text = (t: string) => runMatches(run, { search: { kind: 'text', text: t } });
    expect(text('a-m1x2')).toBe(true);
    expect(text('A-M1X2')).toBe(true);
    expect(text('m1x2')).toBe(false);
    expect(text('econnrefused')).toBe(true);
    expect(text('503 FROM')).toBe(true);
    expect(text('timeout')).toBe(false);
    expect(runMatches({ id: 'x', createdAt: 0 }, { search: { kind: 'text', text: 'timeout' } })).toBe(false);
  });

  it('keeps runs created inside the window, bounds included, and applies the search inside it', () => {
    expect(runMatches(run, {})).toBe(true);
    expect(runMatches(run, { since: run.createdAt, until: run.createdAt })).toBe(true);
    expect(runMatches(run, { since: run.createdAt + 1 })).toBe(false);
    expect(runMatches(run, { until: run.createdAt - 1 })).toBe(false);
    const search = { kind: 'field', path: ['invoice'], value: '42' } as const;
    expect(runMatches(run, { since: now - 120_000, search })).toBe(true);
    expect(runMatches(run, { since: now - 30_000, search })).toBe(false);
  });
});
