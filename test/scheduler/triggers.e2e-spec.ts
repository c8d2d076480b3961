import { startHttpOracle, type HttpOracle } from '@drover/testing';
import { TestCluster, deliveries } from './cluster';

const ROUTINE = 'two-grids';
/** Every 2 s ("even") and every 3 s (unnamed: index 1); each 6th second belongs to both. */
const EVEN_MS = 2000;
const THIRD_MS = 3000;

/** The merged slots of both grids in [from, to] (epoch ms), as X-Drover-Scheduled-For carries them. */
function mergedSlots(from: number, to: number): string[] {
  const out: string[] = [];
  for (let t = Math.ceil(from / 1000) * 1000; t <= to; t += 1000)
    if (t % EVEN_MS === 0 || t % THIRD_MS === 0) out.push(new Date(t).toISOString());
  return out;
}

/**
 * A routine with two interval triggers, against real processes: two Job Schedulers fire it, and
 * on every sixth second both fire the same instant. Counted at the receiver (an HTTP oracle, by
 * X-Drover-Scheduled-For): every slot of the merged stream is delivered exactly once, and each
 * run names the trigger its slot came from (a shared instant: the first listed).
 */
describe('several triggers per routine', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster({
      queues: [{ name: 'default', concurrency: 4 }],
      routines: [
        {
          name: ROUTINE,
          jobType: 'http.request',
          queue: 'default',
          triggers: [
            { kind: 'interval', everyMs: EVEN_MS, name: 'even' },
            { kind: 'interval', everyMs: THIRD_MS },
          ],
          payload: { url: `${oracle.url}/hit`, method: 'POST' },
        },
      ],
    });
    await cluster.start('scheduler', 'sched-1');
    await cluster.startWorker('worker-1');
  }, 60_000);

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it('delivers each slot of the merged stream exactly once, attributed to its trigger', async () => {
    await oracle.waitFor('a first delivery', (h) => h.some((x) => x.routine === ROUTINE), 20_000);
    const from = Math.min(...oracle.hits.filter((x) => x.routine === ROUTINE).map((x) => Date.parse(x.scheduledFor)));
    // Long enough for two shared instants (every 6 s).
    const to = from + 12_000;
    await oracle.waitFor(
      'twelve seconds of slots',
      (h) => h.some((x) => x.routine === ROUTINE && Date.parse(x.scheduledFor) >= to + 1000),
      30_000,
    );
    const slots = mergedSlots(from, to);
    expect(slots.length).toBeGreaterThanOrEqual(8);
    expect(deliveries(oracle.hits, ROUTINE, slots)).toEqual({ routine: ROUTINE, missing: [], twice: [] });
    // Nothing off the merged stream either.
    const onStream = (t: number) => t % EVEN_MS === 0 || t % THIRD_MS === 0;
    const off = oracle.hits.filter((h) => h.routine === ROUTINE && !onStream(Date.parse(h.scheduledFor)));
    expect(off.map((h) => h.scheduledFor)).toEqual([]);
    for (const slot of slots) {
      const hit = oracle.hits.find((h) => h.routine === ROUTINE && h.scheduledFor === slot)!;
      const run = await cluster.run(hit.runId);
      expect([slot, run?.trigger]).toEqual([slot, Date.parse(slot) % EVEN_MS === 0 ? 'even' : '1']);
    }
  }, 60_000);
});
