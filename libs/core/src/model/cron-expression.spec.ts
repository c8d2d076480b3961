import { checkCron, cronMinGapMs } from './cron-expression';

describe('checkCron', () => {
  it.each([
    ['0 2 * * *'],
    ['*/15 * * * * *'],
    ['0 9-17/2 * * 1-5'],
    ['0 0 L * *'],
    ['0 0 * * 1#2'],
    ['0 0 1 jan mon'],
    ['  0   2 * * *  '],
  ])('accepts %j', (expr) => {
    expect(checkCron(expr).ok).toBe(true);
  });

  it.each([
    ['', 'has 0 fields; expected 5 (minute hour day-of-month month day-of-week) or 6 (second first)'],
    ['@daily', 'has 1 field; expected 5'],
    ['* * * * * * *', 'has 7 fields'],
    ['61 * * * *', 'minute must be 0-59'],
    ['60 * * * * *', 'second must be 0-59'],
    ['0 24 * * *', 'hour must be 0-23'],
    ['0 0 0 * *', 'day-of-month must be 1-31'],
    ['0 0 * 13 *', 'month must be 1-12'],
    ['0 0 * * 8', 'day-of-week must be 0-7'],
    ['1-70 * * * *', 'minute must be 0-59'],
    ['*/0 * * * *', 'minute step must be at least 1'],
    ['*/x * * * *', 'minute step must be a positive integer'],
    ['H * * * *', 'minute uses hash (H) syntax, which is not supported'],
    ['5-1 * * * *', 'Invalid range: 5-1, min(5) > max(1)'],
    ['0 0 30 2 *', 'Invalid explicit day of month definition'],
    ['a b c d e', 'Invalid characters, got value: a'],
  ])('refuses %j: %s', (expr, reason) => {
    const r = checkCron(expr);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(reason);
  });
});

describe('cronMinGapMs', () => {
  const gap = (expr: string) => {
    const r = checkCron(expr);
    if (!r.ok) throw new Error(r.reason);
    return cronMinGapMs(r);
  };
  it.each([
    ['* * * * * *', 1000],
    ['*/10 * * * * *', 10_000],
    ['0,59 * * * * *', 1000], // 59 s then 0 s of the next minute
    ['* * * * *', 60_000],
    ['0,30 * * * *', 30 * 60_000],
    ['0 */6 * * *', 6 * 3_600_000],
    ['0 22,2 * * *', 4 * 3_600_000],
    ['0 2 * * *', 86_400_000],
    ['0 2 1 * *', 86_400_000],
  ])('%j → %d ms', (expr, ms) => {
    expect(gap(expr)).toBe(ms);
  });
});
