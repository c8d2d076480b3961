import { parseBundle, STATS_MAX_WINDOW_MS, type Routine } from '@drover/core';
import { DONE_CLAIM_MS, ARMED_CLAIM_MS, PENDING_WINDOW_MS } from '@drover/store';
import { dispatcherHarness } from '../testing/dispatcher-harness';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
/** The longest a per-slot key may live, with the margin the claim TTLs add. */
const LONGEST_SLOT_KEY_MS = Math.max(DONE_CLAIM_MS, ARMED_CLAIM_MS, PENDING_WINDOW_MS + 60_000) + 2 * 60_000;

function routine(name: string, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 1000 }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/**
 * Keys must not grow with the number of slots fired: every per-run key is bounded by its queue's
 * retention (count and age) or by its routine's existence, and every per-slot key expires within
 * minutes. Slots are fired through the real dispatcher, one per (virtual) second.
 */
describe('Redis keys stay bounded however many slots fire (real Redis)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default', retention: { count: 5 } }], T0);
  });

  afterEach(async () => {
    await h.close();
  });

  async function keysOf(): Promise<{ lasting: string[]; expiring: { key: string; ttl: number }[] }> {
    const all = await h.conns.command.keys(`${h.keys.prefix}:*`);
    const ttls = await Promise.all(all.map((k) => h.conns.command.pttl(k)));
    return {
      lasting: all.filter((_, i) => ttls[i] === -1).sort(),
      expiring: all.map((key, i) => ({ key, ttl: ttls[i]! })).filter((k) => k.ttl >= 0),
    };
  }

  async function fireSlots(name: string, from: number, count: number): Promise<void> {
    for (let i = from; i < from + count; i++) {
      h.clock.t = T0 + i * 1000;
      await h.dispatcher.dispatch(name, { slot: h.clock.t });
    }
  }

  it('a mostly skipped routine: skipped records are capped by the retention count, nothing else grows', async () => {
    h.conditions.register('never', () => false);
    await h.routines.upsert(routine('skippy', { condition: 'never' }), 'api', T0);
    await fireSlots('skippy', 1, 100);
    const after100 = await keysOf();
    await fireSlots('skippy', 101, 300);
    const after400 = await keysOf();
    expect(after400.lasting).toEqual(after100.lasting);
    const records = after400.expiring.filter((k) => k.key.includes(':run:'));
    expect(records).toHaveLength(5);
    // Each kept record also expires with the retention age.
    for (const r of records) expect(r.ttl).toBeLessThanOrEqual(7 * 24 * 3_600_000);
    for (const k of after400.expiring.filter((e) => e.key.includes(':slot:'))) {
      expect(k.ttl).toBeLessThanOrEqual(LONGEST_SLOT_KEY_MS);
    }
  });

  it('a routine that runs every slot: lasting keys do not grow, per-slot keys all expire within minutes', async () => {
    await h.routines.upsert(routine('busy', { concurrencyPolicy: 'forbid' }), 'api', T0);
    await fireSlots('busy', 1, 50);
    const after50 = await keysOf();
    await fireSlots('busy', 51, 150);
    const after200 = await keysOf();
    // The runs themselves are BullMQ jobs, removed by the workers' retention (not running here):
    // besides them, no lasting key was added per slot.
    const nonJob = (keys: string[]) => keys.filter((k) => !/:default:r-busy-\d+$/.test(k));
    expect(nonJob(after200.lasting)).toEqual(nonJob(after50.lasting));
    // Slot claims and the runs' deduplication markers expire within minutes; records of runs that
    // have no job (here: fires skipped by forbid) are capped by the retention count.
    const perSlot = after200.expiring.filter((k) => /:slot:|:de:/.test(k.key));
    expect(perSlot.length).toBeGreaterThan(0);
    for (const k of perSlot) expect(k.ttl).toBeLessThanOrEqual(LONGEST_SLOT_KEY_MS);
    expect(after200.expiring.filter((k) => k.key.includes(':run:')).length).toBeLessThanOrEqual(5);
    // Run statistics: one hash per routine and hour, expiring after the longest stats window.
    const stats = after200.expiring.filter((k) => k.key.includes(':rstats:busy:'));
    expect(stats.length).toBeLessThanOrEqual(2); // 150 one-second slots span at most two hours
    for (const k of stats) expect(k.ttl).toBeLessThanOrEqual(STATS_MAX_WINDOW_MS + 3_600_000);
    expect(after200.expiring.filter((k) => !/:slot:|:de:|:run:|:rstats:/.test(k.key)).map((k) => k.key)).toEqual([
      `${h.keys.prefix}:{core}:runs-kept:default`,
    ]);
    // The routine's open-run index is pruned on every forbid fire: it holds the one open run.
    expect(await h.conns.command.zcard(h.keys.routineOpen('busy'))).toBeLessThanOrEqual(1);
  });

  it('a deleted routine leaves no lasting key of its own behind', async () => {
    await h.routines.upsert(routine('short-lived'), 'api', T0);
    await fireSlots('short-lived', 1, 20);
    // An `allow` routine's runs are not listed as open (nothing reads that list for it).
    expect(await h.conns.command.zcard(h.keys.routineOpen('short-lived'))).toBe(0);
    await h.routines.remove('short-lived');
    const left = (await keysOf()).lasting.filter(
      (k) => k.includes('short-lived') && !/:default:r-short-lived-/.test(k),
    );
    expect(left).toEqual([]);
  });
});
