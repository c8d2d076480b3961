import { cronRepeatStrategy } from './cron-repeat';

const at = (iso: string) => Date.parse(iso);
const next = (pattern: string, tz: string, after: string) => cronRepeatStrategy(at(after), { pattern, tz });

describe('cronRepeatStrategy: cron Job Schedulers fire at core slots', () => {
  it('fires a spring-forward slot at the transition, as the DST policy says (cron-parser: 30 min later)', () => {
    expect(next('30 2 * * *', 'Europe/Berlin', '2026-03-29T00:59:52Z')).toBe(at('2026-03-29T01:00:00Z'));
    // Every minute of the skipped hour collapses into that one fire; the next is the next day's.
    expect(next('* 2 * * *', 'Europe/Berlin', '2026-03-29T00:59:52Z')).toBe(at('2026-03-29T01:00:00Z'));
    expect(next('* 2 * * *', 'Europe/Berlin', '2026-03-29T01:00:00Z')).toBe(at('2026-03-30T00:00:00Z'));
  });

  it('fires a repeated wall hour once at fall-back', () => {
    expect(next('0 * * * *', 'America/New_York', '2025-11-02T05:00:00Z')).toBe(at('2025-11-02T07:00:00Z'));
  });

  it('is strictly after the given instant, and leaves every-schedulers to BullMQ', () => {
    expect(next('0 3 * * *', 'UTC', '2026-01-01T03:00:00Z')).toBe(at('2026-01-02T03:00:00Z'));
    expect(cronRepeatStrategy(0, { every: 1000 })).toBeUndefined();
  });
});
