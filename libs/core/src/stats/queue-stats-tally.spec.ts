import { queueStatsIncrements, type QueueObservation } from './queue-stats';
import { QueueStatsTally } from './queue-stats-tally';

/** The hash increments of observations, as `queue res span field → count`. */
function increments(list: { queue: string; at: number; obs: QueueObservation; count: number }[]) {
  const out = new Map<string, number>();
  for (const { queue, at, obs, count } of list) {
    for (const inc of queueStatsIncrements(at, obs)) {
      const key = `${queue} ${inc.res.name} ${inc.spanStart} ${inc.field} ${inc.expireAt}`;
      out.set(key, (out.get(key) ?? 0) + count);
    }
  }
  return out;
}

describe('QueueStatsTally', () => {
  it('makes the same hash increments as counting each observation by itself', () => {
    const t0 = Date.UTC(2026, 10, 26, 13, 58, 30);
    const seen: { queue: string; at: number; obs: QueueObservation; count: number }[] = [];
    const tally = new QueueStatsTally();
    const counters = ['succeeded', 'canceled', 'retried', 'parked'] as const;
    for (let i = 0; i < 2_000; i++) {
      const queue = i % 3 === 0 ? 'etl' : 'default';
      // Across the hour's end, so minute and hour spans both turn over.
      const at = t0 + i * 1_200;
      const obs: QueueObservation =
        i % 5 === 0
          ? { latenessMs: (i * 37) % 700_000 }
          : i % 7 === 0
            ? { counter: counters[i % 4]!, latenessMs: i }
            : { counter: counters[i % 4]! };
      tally.add(queue, at, obs);
      seen.push({ queue, at, obs, count: 1 });
    }
    const drained = tally.drain();
    expect(increments(drained)).toEqual(increments(seen));
    expect(drained.length).toBeLessThan(seen.length / 3);
    expect(tally.size).toBe(0);
    expect(tally.drain()).toEqual([]);
  });
});
