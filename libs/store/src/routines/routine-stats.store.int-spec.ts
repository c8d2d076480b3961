import { STATS_BUCKET_MS } from '@drover/core';
import { testStores } from '@drover/testing';
import type { StatsBatch } from './routine-stats.store';

const H = STATS_BUCKET_MS;

describe('RoutineStatsStore on a real Redis', () => {
  let stores: ReturnType<typeof testStores>;

  beforeEach(() => {
    stores = testStores('routine-stats');
  });

  afterEach(() => stores.close());

  it('adds observations per hour, merges the hours a window touches, and lets them expire', async () => {
    const { stats } = stores;
    const batch: StatsBatch = new Map();
    stats.add(batch, 'r', 10 * H + 5, { status: 'succeeded', durationMs: 1000 });
    stats.add(batch, 'r', 10 * H + 6, { status: 'parked', durationMs: 4000 });
    stats.add(batch, 'r', 9 * H, { latenessMs: 20 });
    stats.add(batch, 'r', 2 * H, { status: 'succeeded' }); // outside a 2h window
    stats.add(batch, 'other', 10 * H, { status: 'canceled' });
    await stats.flush(batch);

    const merged = await stats.read('r', 10 * H + 10, 2 * H);
    expect(merged.counts).toEqual({ succeeded: 1, parked: 1, canceled: 0, skipped: 0 });
    expect([...merged.duration.values()].reduce((a, b) => a + b)).toBe(2);
    expect([...merged.lateness.values()]).toEqual([1]);
    expect(merged.from).toBe(8 * H);
    expect((await stats.read('r', 10 * H + 10, 7 * 24 * H)).counts.succeeded).toBe(2);

    const ttl = await stores.connections.command.pttl(stats.key('r', 10 * H));
    expect(ttl).toBeGreaterThan(7 * 24 * H);
    expect(ttl).toBeLessThanOrEqual(7 * 24 * H + H);
  });

  it('counts a skipped record in the same round trip as its index entry', async () => {
    await stores.registry.put([{ name: 'default' }]);
    await stores.runs.recordSkipped({
      id: 'r-sk-1000',
      routine: 'sk',
      jobType: 'noop',
      queue: 'default',
      source: 'schedule',
      scheduledFor: 1000,
      reason: 'catch-up-skip',
    });
    // A second record of the same slot creates nothing and counts nothing.
    await stores.runs.recordSkipped({
      id: 'r-sk-1000',
      routine: 'sk',
      jobType: 'noop',
      queue: 'default',
      source: 'schedule',
      scheduledFor: 1000,
      reason: 'catch-up-skip',
    });
    expect((await stores.stats.read('sk', Date.now(), H)).counts.skipped).toBe(1);
  });
});
