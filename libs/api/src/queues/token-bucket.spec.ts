import { burstFor, TokenBucket } from './token-bucket';

/** Drives a bucket the way an operation does: wait what it says, then act. Returns when each acted. */
function actAt(bucket: TokenBucket, start: number, n: number): number[] {
  const times: number[] = [];
  let now = start;
  for (let i = 0; i < n; i++) {
    now += bucket.take(now);
    times.push(now);
  }
  return times;
}

describe('TokenBucket', () => {
  it('spaces actions 1000/rate ms apart once the burst is spent', () => {
    const times = actAt(new TokenBucket(10, 1, 0), 0, 30);
    expect(times.slice(0, 4)).toEqual([0, 100, 200, 300]);
    // 30 actions at 10/s with a burst of one take 2.9 s: the bulk replay e2e relies on this.
    expect(times[29]).toBe(2900);
  });

  it('lets a burst go at once, then paces the rest', () => {
    const times = actAt(new TokenBucket(100, 10, 1000), 1000, 20);
    expect(times.slice(0, 10)).toEqual(Array(10).fill(1000));
    expect(times[10]).toBe(1010);
    expect(times[19]).toBe(1100);
  });

  it('refills while idle, never beyond the burst', () => {
    const bucket = new TokenBucket(10, 2, 0);
    actAt(bucket, 0, 2);
    // An hour idle buys two immediate actions, not 36,000.
    expect(actAt(bucket, 3_600_000, 3)).toEqual([3_600_000, 3_600_000, 3_600_100]);
  });

  it('keeps the rate when callers ask again before their wait is over (reservations queue)', () => {
    const bucket = new TokenBucket(4, 1, 0);
    expect([bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([0, 250, 500]);
  });

  it('refuses a rate or burst that cannot pace anything', () => {
    expect(() => new TokenBucket(0, 1, 0)).toThrow(RangeError);
    expect(() => new TokenBucket(5, 0, 0)).toThrow(RangeError);
  });

  it('allows a tenth of a second of burst, at least one', () => {
    expect([burstFor(1), burstFor(10), burstFor(100), burstFor(1000)]).toEqual([1, 1, 10, 100]);
  });
});
