import { QUEUE_STATS_HOURS, QUEUE_STATS_MINUTES, queueStatsIncrements, LATENESS_BOUNDS_MS } from '@drover/core';
import type { QueueStatsBatch } from '@drover/store';
import { uniquePrefix } from '@drover/testing';
import { failing, newRun, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

const H = 3_600_000;

describe("a queue's run totals, written by a real worker on a real Redis", () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  it('counts what the worker settled: succeeded, retried, parked, and the lateness of first starts', async () => {
    p = await producer(uniquePrefix('qs'), [
      { name: 'q', maxAttempts: 2, backoff: { type: 'fixed', delayMs: 50 } },
      { name: 'quiet' },
    ]);
    w = await startRuntime(p.prefix);
    failing.on = true;
    const ids = [
      ...['s1', 's2', 's3', 's4', 's5'].map((id) => newRun(id, 'test.echo')),
      newRun('perm1', 'test.permanent'),
      newRun('perm2', 'test.permanent'),
      newRun('twice', 'test.fail'), // fails, retries once, fails again: parked
    ];
    for (const run of ids) await p.runs.enqueue(run);
    for (const run of ids) await p.runs.waitForTerminal(run.id, 10_000);
    await w.close(); // flushes the stats batch
    w = undefined;

    const now = Date.now();
    const hour = await p.queueStats.read('q', now, H);
    expect(hour.totals).toEqual({ processed: 9, failed: 4, parked: 3, succeeded: 5, canceled: 0, retried: 1 });
    expect(hour.points.reduce((n, pt) => n + pt.processed, 0)).toBe(9);
    // Eight runs first started, each a few ms after it was enqueued.
    expect(hour.latenessMs.p50).toEqual(expect.any(Number));
    expect(hour.latenessMs.p50!).toBeLessThanOrEqual(LATENESS_BOUNDS_MS[2]);
    // A week reads the hour buckets, written alongside.
    expect((await p.queueStats.read('q', now, 7 * 24 * H)).totals.processed).toBe(9);

    const all = await p.queueStats.readAll(['q', 'quiet'], now, 24 * H);
    expect(all.overall.totals.processed).toBe(9);
    expect(all.queues.map((q) => [q.queue, q.summary.totals.parked])).toEqual([
      ['q', 3],
      ['quiet', 0],
    ]);

    // Two hashes (this minute span, this hour span), compact, each expiring when its span is old enough.
    const redis = p.connections.command;
    const keys = (await redis.keys(`${p.prefix}:{core}:qstats:q:*`)).sort();
    expect(keys.map((k) => k.split(':').slice(-2, -1)[0])).toEqual(['h', 'm']);
    for (const key of keys) {
      expect(await redis.object('ENCODING', key)).toBe('listpack');
      const res = key.includes(':m:') ? QUEUE_STATS_MINUTES : QUEUE_STATS_HOURS;
      const start = Number(key.split(':').at(-1));
      expect(Number(await redis.call('PEXPIRETIME', key))).toBe(start + res.spanMs + res.keepMs);
    }
  });

  it('stays within its bound: a full span is one small hash, and spans past their keep are gone', async () => {
    p = await producer(uniquePrefix('qs'), [{ name: 'q' }]);
    const now = Date.now();
    const batch: QueueStatsBatch = new Map();
    const add = (at: number, latenessMs: number) =>
      p.queueStats.add(batch, 'q', at, { counter: 'succeeded', latenessMs });
    // Every field of one minute span: each minute, each counter, each lateness bucket.
    const span = Math.floor(now / QUEUE_STATS_MINUTES.spanMs) * QUEUE_STATS_MINUTES.spanMs;
    for (let m = 0; m < 10; m++)
      for (const c of ['succeeded', 'canceled', 'retried', 'parked'] as const)
        for (const l of [0, ...LATENESS_BOUNDS_MS, 1e9])
          p.queueStats.add(batch, 'q', span + m * 60_000, { counter: c, latenessMs: l });
    add(now - 25 * H, 0); // still kept
    add(now - 26 * H - QUEUE_STATS_MINUTES.spanMs - 60_000, 0); // its minute span is past 26 h
    add(now - 8 * 24 * H - QUEUE_STATS_HOURS.spanMs - 60_000, 0); // its hour span is past 8 days
    await p.queueStats.write(p.connections.command.pipeline(), batch).exec();

    const redis = p.connections.command;
    const full = `${p.prefix}:{core}:qstats:q:m:${span}`;
    expect(await redis.hlen(full)).toBe(120);
    expect(await redis.object('ENCODING', full)).toBe('listpack');
    const bytes = Number(await redis.call('MEMORY', 'USAGE', full));
    expect(bytes).toBeLessThan(1_200); // docs/redis.md states the bound from this (1112 bytes on Redis 7)

    const minuteSpans = (await redis.keys(`${p.prefix}:{core}:qstats:q:m:*`)).map((k) => Number(k.split(':').at(-1)));
    const hourSpans = (await redis.keys(`${p.prefix}:{core}:qstats:q:h:*`)).map((k) => Number(k.split(':').at(-1)));
    const inc = (at: number, res: typeof QUEUE_STATS_MINUTES) =>
      queueStatsIncrements(at, { counter: 'succeeded' }).find((i) => i.res === res)!.spanStart;
    expect(minuteSpans.sort()).toEqual([inc(now - 25 * H, QUEUE_STATS_MINUTES), span].sort());
    expect(hourSpans).not.toContain(inc(now - 8 * 24 * H - QUEUE_STATS_HOURS.spanMs - 60_000, QUEUE_STATS_HOURS));
    expect(hourSpans).toContain(inc(now - 26 * H - QUEUE_STATS_MINUTES.spanMs - 60_000, QUEUE_STATS_HOURS));
  });
});
