import type { Redis } from 'ioredis';
import { parseBundle, type Routine } from '@drover/core';
import { StaleLeaderError } from '@drover/redis';
import { startReconcilerHarness, type ReconcilerHarness } from '../testing/reconciler-harness';

function routine(name: string, trigger: Record<string, unknown>): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

const daily = (i: number) =>
  routine(
    `r-${String(i).padStart(4, '0')}`,
    i % 2 ? { kind: 'cron', cron: '0 3 * * *', tz: 'Europe/Berlin' } : { kind: 'interval', everyMs: 86_400_000 },
  );

/** Waits until the writes still in flight have landed: the number of Job Schedulers stands still. */
async function schedulersSettled(h: ReconcilerHarness): Promise<number> {
  const zcard = () => h.conns.command.zcard(h.fires.keys.repeat!);
  let before = -1;
  let count = await zcard();
  while (count !== before) {
    await new Promise((r) => setTimeout(r, 200));
    [before, count] = [count, await zcard()];
  }
  return count;
}

describe('Reconciler: how a full pass writes many routines', () => {
  let h: ReconcilerHarness;

  beforeEach(async () => {
    h = await startReconcilerHarness('rec-writes', 30_000);
  });
  afterEach(() => h.stop());

  it('sends the upserts its lanes start together in shared socket writes', async () => {
    const n = 400;
    await h.routines.createMany(
      Array.from({ length: n }, (_, i) => daily(i)),
      'api',
      h.clock.now(),
    );
    const socket = (h.fires.redis as Redis).stream as unknown as Record<
      '_write' | '_writev',
      (...a: unknown[]) => void
    >;
    let writes = 0;
    const [write, writev] = [socket._write, socket._writev];
    socket._write = (...args) => (writes++, write.apply(socket, args));
    socket._writev = (...args) => (writes++, writev.apply(socket, args));
    try {
      expect((await h.reconciler.reconcileAll(h.lead, h.isCurrent)).upserted).toHaveLength(n);
    } finally {
      Object.assign(socket, { _write: write, _writev: writev });
    }
    expect(await h.conns.command.zcard(h.fires.keys.repeat!)).toBe(n);
    // One write per upsert without the shared writes; with them, one per batch of replies read together.
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThan(n / 4);
  });

  it('records a fingerprint only once its chunk’s BullMQ writes are done, and starts nothing after a failure', async () => {
    const n = 2_500; // three recording chunks: 1 000, 1 000 and 500 routines
    await h.routines.createMany(
      Array.from({ length: n }, (_, i) => daily(i)),
      'api',
      h.clock.now(),
    );
    // The 1 500th upsert fails: the lanes (128) took it only once the whole first chunk was done.
    const upsert = h.fires.upsertJobScheduler.bind(h.fires);
    let calls = 0;
    let failing: string | undefined;
    h.fires.upsertJobScheduler = ((
      id: string,
      ...rest: Parameters<typeof upsert> extends [string, ...infer R] ? R : never
    ) => {
      if (++calls !== 1_500) return upsert(id, ...rest);
      failing = id;
      return Promise.reject(new Error('refused by the test'));
    }) as typeof upsert;
    await expect(h.reconciler.reconcileAll(h.lead, h.isCurrent)).rejects.toThrow('refused by the test');
    await schedulersSettled(h);
    const recorded = await h.conns.command.hkeys(h.reconciler.writtenKey);
    const scheduled = new Set(await h.conns.command.zrange(h.fires.keys.repeat!, '0', '-1'));
    // The first chunk only: the failing one's is not recorded, and no lane went on to the third.
    expect(recorded).toHaveLength(1_000);
    expect(recorded.includes(failing!)).toBe(false);
    expect(recorded.filter((name) => !scheduled.has(name))).toEqual([]);
    expect(scheduled.size).toBeLessThan(2_000);
    // The next pass writes what is missing, and only that.
    h.fires.upsertJobScheduler = upsert;
    const next = await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    expect(next.upserted).toContain(failing);
    expect(next.unchanged).toBe(1_000);
    expect(next.upserted).toHaveLength(n - 1_000);
    expect(await h.conns.command.hlen(h.reconciler.writtenKey)).toBe(n);
    expect(await h.conns.command.zcard(h.fires.keys.repeat!)).toBe(n);
  });

  it('stops writing once a chunk’s record is refused: a leader whose lease is gone records nothing', async () => {
    const n = 2_000; // the first chunk's record, refused, comes after 1 000 routines
    await h.routines.createMany(
      Array.from({ length: n }, (_, i) => daily(i)),
      'api',
      h.clock.now(),
    );
    const stale = { ...h.lead, token: `${h.lead.token}-stale` };
    await expect(h.reconciler.reconcileAll(stale, h.isCurrent)).rejects.toThrow(StaleLeaderError);
    const written = await schedulersSettled(h);
    expect(await h.conns.command.hlen(h.reconciler.writtenKey)).toBe(0);
    // The lanes stopped at the refusal rather than writing every routine.
    expect(written).toBeGreaterThanOrEqual(1_000);
    expect(written).toBeLessThan(n);
  });
});
