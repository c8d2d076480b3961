import { parseSlotRunId } from '@drover/core';
import { startHttpOracle, waitFor, type AppProcess, type HttpOracle } from '@drover/testing';
import { TestCluster, deliveredTwice } from './cluster';

const ROUTINES = ['held-a', 'held-b', 'held-c', 'held-d', 'held-e', 'held-f'];
/** Wide, so a worker holds runs most of each second and a kill lands while it holds some. */
const LEAD_MS = 800;
const LEASE_MS = 2000;
const CONCURRENCY = 2;

/** A run a worker holds right now: active in BullMQ, locked by that worker, its slot still ahead. */
interface Held {
  id: string;
  slot: number;
  worker: string;
}

/**
 * Workers take armed runs DROVER_ARM_LEAD_MS ahead of their slot and start each on a timer at the
 * slot. Checked at the receiver (an HTTP oracle): every delivery arrives at or after the slot in
 * its X-Drover-Scheduled-For header, no slot is delivered twice, and the queue's concurrency holds
 * however many runs are held — through a cancel, a SIGTERM and a SIGKILL of a worker holding runs.
 */
describe('workers hold armed runs and start them at their slot', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;
  const workers: AppProcess[] = [];

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster(
      {
        queues: [{ name: 'default', concurrency: CONCURRENCY, leaseMs: LEASE_MS, maxAttempts: 3 }],
        routines: ROUTINES.map((name) => ({
          name,
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: 1000 },
          // Each answer takes 150 ms, so six runs due at once overlap unless the gate keeps them to 2.
          payload: { url: `${oracle.url}/hit?delayMs=150`, method: 'POST' },
        })),
      },
      { DROVER_ARM_LEAD_MS: String(LEAD_MS) },
    );
    await cluster.start('scheduler', 'sched-1');
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  afterEach(() => {
    // Every delivery so far: never before its slot, never a slot twice as the same attempt.
    const early = oracle.hits.filter((h) => h.receivedAt < Date.parse(h.scheduledFor));
    expect(early.map((h) => `${h.runId} ${Date.parse(h.scheduledFor) - h.receivedAt} ms early`)).toEqual([]);
    // A slot runs again only as a new attempt: the retry of an attempt a killed worker had started.
    const attempts = new Map<string, number[]>();
    for (const h of oracle.hits) attempts.set(h.runId, [...(attempts.get(h.runId) ?? []), h.attempt]);
    const repeated = [...attempts].filter(([, a]) => new Set(a).size !== a.length).map(([id, a]) => `${id} ${a}`);
    expect(repeated).toEqual([]);
    for (const routine of ROUTINES) expect(startedTwiceAsOne(routine)).toEqual([]);
  });

  /** The runs `worker` holds now whose slot is at least `aheadMs` away. */
  async function heldBy(worker: string, aheadMs: number): Promise<Held[]> {
    const jobs = await cluster.bull.get('default').getJobs(['active']);
    const now = Date.now();
    return jobs.flatMap((j) => {
      const slot = j.id ? parseSlotRunId(j.id)?.slotMs : undefined;
      return slot !== undefined && j.processedBy === worker && slot - now >= aheadMs
        ? [{ id: j.id!, slot, worker }]
        : [];
    });
  }

  const waitHeld = (worker: string, aheadMs: number, atLeast = 1) =>
    waitFor(
      `${worker} to hold ${atLeast} runs`,
      async () => {
        const held = await heldBy(worker, aheadMs);
        return held.length >= atLeast ? held : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 20 },
    );

  /** Slots of `routine` delivered twice as the same attempt (counted per slot at the receiver). */
  const startedTwiceAsOne = (routine: string) =>
    deliveredTwice(
      oracle.hits.map((h) => ({ ...h, scheduledFor: `${h.scheduledFor}#${h.attempt}` })),
      routine,
    );

  const hitsOf = (id: string) => oracle.hits.filter((h) => h.runId === id);

  it('runs every slot at or after it while holding it ahead; a held run canceled never starts', async () => {
    workers.push(await cluster.startWorker('worker-1'));
    // Held: active and locked by the worker before the slot (the promotion and the fetch are done),
    // more of them than the queue's concurrency (held runs do not take its places).
    const held = await waitHeld('worker-1', 300, CONCURRENCY + 1);
    const canceled = held[0]!;
    await cluster.runs.cancel(canceled.id, 'not wanted');
    const since = Date.now();
    await oracle.waitFor(
      'five seconds of runs',
      (h) => ROUTINES.every((r) => h.filter((x) => x.routine === r && x.receivedAt > since).length >= 5),
      30_000,
    );
    // One worker so far: the queue's concurrency holds however many runs it held at once.
    expect(oracle.maxInFlight()).toBeLessThanOrEqual(CONCURRENCY);
    expect(hitsOf(canceled.id)).toEqual([]);
    expect((await cluster.run(canceled.id))?.status).toBe('canceled');
  }, 60_000);

  it('SIGTERM while holding: the held runs go back and another worker runs them at their slots', async () => {
    workers.push(await cluster.startWorker('worker-2'));
    const held = await waitHeld('worker-1', 300);
    await workers[0]!.stop('SIGTERM');
    expect(held.length).toBeGreaterThan(0);
    for (const h of held) {
      await oracle.waitFor(`${h.id} to run`, () => hitsOf(h.id).length > 0, 10_000);
      // Handed back, not lost: the interrupted hold is not an attempt.
      expect(hitsOf(h.id).map((x) => x.attempt)).toEqual([1]);
      expect((await cluster.run(h.id))?.worker).toBe('worker-2');
    }
  }, 60_000);

  it('SIGKILL while holding: each held slot runs once, after the lease expires, never early', async () => {
    workers.push(await cluster.startWorker('worker-3'));
    const held = await waitHeld('worker-2', 300);
    await workers[1]!.stop('SIGKILL');
    expect(held.length).toBeGreaterThan(0);
    for (const h of held) {
      // The stalled-job check hands it to worker-3 within lease + two checks; the lost hold counts.
      await oracle.waitFor(`${h.id} to run`, () => hitsOf(h.id).length > 0, 4 * LEASE_MS + 5_000);
      expect(hitsOf(h.id).map((x) => x.attempt)).toEqual([2]);
    }
    // A little more time for any second delivery to show up.
    await new Promise((r) => setTimeout(r, 2000));
    for (const h of held) expect(hitsOf(h.id)).toHaveLength(1);
  }, 60_000);
});
