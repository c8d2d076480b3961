import { ManualClock } from '@drover/testing';
import { PendingCancels } from './pending-cancels';

describe('PendingCancels', () => {
  it('hands a request out once, and not after it expired', () => {
    const clock = new ManualClock(0);
    const pending = new PendingCancels(clock, 1_000, 100);
    pending.add('a', 'replaced');
    pending.add('b', 'operator');
    expect(pending.take('a')).toBe('replaced');
    expect(pending.take('a')).toBeUndefined();
    clock.advance(1_001);
    expect(pending.take('b')).toBeUndefined();
  });

  it('stays bounded', () => {
    const pending = new PendingCancels(new ManualClock(0), 60_000, 10);
    for (let i = 0; i < 100; i++) pending.add(`r${i}`, 'x');
    expect(pending.size).toBeLessThanOrEqual(10);
    expect(pending.take('r99')).toBe('x');
  });
});
