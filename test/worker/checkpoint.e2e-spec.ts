import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startApp, type AppProcess } from '@drover/testing';
import { testCluster, type TestCluster } from './support/cluster';
import { Oracle } from './support/oracle';

const ROOT = join(__dirname, '..', '..');
/** The fixture worker app, compiled next to the built libraries so its requires land in dist/libs. */
const ENTRY = join(ROOT, 'dist', 'test', 'worker', 'support', 'checkpoint-worker.app.js');

const ITEMS = 100;
const EVERY = 10;

/** One item as the receiver got it. */
interface Delivery {
  item: number;
  attempt: number;
  /** The checkpoint (next item) the attempt started from. */
  from: number;
}

/**
 * Checkpoint and resume with real worker processes: a handler over 100 items POSTs each to a
 * receiver and checkpoints every 10. Its worker dies (kill -9) or is drained (SIGTERM) mid-way;
 * another worker's attempt starts after the last checkpoint. Counted at the receiver: every item
 * arrives, and only the items after the last checkpoint — at most one interval — arrive twice.
 */
describe('checkpoint and resume (real worker processes)', () => {
  let cluster: TestCluster;
  let oracle: Oracle;

  beforeAll(() => {
    const swc = join(ROOT, 'node_modules', '.bin', 'swc');
    const src = join('test', 'worker', 'support', 'checkpoint-worker.app.ts');
    const res = spawnSync(swc, [src, '-o', ENTRY, '--config-file', '.swcrc'], { cwd: ROOT, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`swc failed: ${res.stderr}`);
  });

  beforeEach(async () => {
    oracle = await new Oracle().start();
    cluster = await testCluster('ckpt', [{ name: 'items', leaseMs: 2_000, maxAttempts: 3, concurrency: 1 }]);
  }, 60_000);

  afterEach(async () => {
    await cluster?.close();
    await oracle?.stop();
  }, 30_000);

  async function startWorker(name: string, env: Record<string, string> = {}): Promise<AppProcess> {
    const p = await startApp(name, { entry: ENTRY, env: { ...cluster.env(name), ...env }, readyTimeoutMs: 30_000 });
    cluster.processes.push(p);
    return p;
  }

  const deliveries = (runId: string): Delivery[] => oracle.callsOf(runId).map((c) => JSON.parse(c.body) as Delivery);

  const enqueue = (id: string, delayMs: number) =>
    cluster.runs.enqueue({
      id,
      routine: null,
      jobType: 'items.process',
      queue: 'items',
      source: 'api',
      scheduledFor: null,
      payload: { items: ITEMS, every: EVERY, receiver: `${oracle.url}/items`, delayMs },
    });

  /**
   * Every item arrived; the second attempt started from a checkpoint past the first interval; no
   * item before it arrived twice; the items after it that did are at most one interval.
   */
  function expectResumed(runId: string): number {
    const got = deliveries(runId);
    const count = new Map<number, number>();
    for (const d of got) count.set(d.item, (count.get(d.item) ?? 0) + 1);
    expect([...count.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
    const resumed = got.filter((d) => d.from > 0);
    expect(resumed.length).toBeGreaterThan(0);
    const from = resumed[0]!.from;
    expect(from % EVERY).toBe(0);
    expect(resumed.every((d) => d.from === from)).toBe(true);
    const twice = [...count.entries()].filter(([, n]) => n > 1).map(([item]) => item);
    expect([...count.values()].every((n) => n <= 2)).toBe(true);
    expect(twice.every((item) => item >= from && item < from + EVERY)).toBe(true);
    // The first attempt's items: everything before the checkpoint the next one resumed from.
    expect(got.filter((d) => d.from === 0).map((d) => d.item)).toEqual(
      Array.from({ length: from + twice.length }, (_, i) => i),
    );
    return from;
  }

  it('kill -9 mid-way: the reclaimed attempt resumes after the last checkpoint; each item at most once per interval', async () => {
    const workers = [await startWorker('worker-a'), await startWorker('worker-b')];
    await enqueue('a-items', 40);
    await oracle.until('45 items', () => oracle.callsOf('a-items').length >= 45, 30_000);
    const holder = (await cluster.runs.get('a-items'))?.worker;
    const [dead, b] = holder === 'worker-a' ? workers : [workers[1]!, workers[0]!];
    expect(await dead!.stop('SIGKILL')).toBe('SIGKILL');

    const { run } = await cluster.runs.waitForTerminal('a-items', 60_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2, worker: b!.name });
    const from = expectResumed('a-items');
    expect(from).toBeGreaterThanOrEqual(40);
    expect(run?.result).toEqual({ from });
    expect(run?.checkpoint).toMatchObject({ attempt: 2, state: { next: ITEMS } });
    expect(b!.output()).not.toMatch(/"level":50/);
  }, 120_000);

  it('SIGTERM past the grace period: the handed-back run resumes after the last checkpoint, its attempt unused', async () => {
    const a = await startWorker('worker-a', { DROVER_SHUTDOWN_GRACE_MS: '300' });
    await enqueue('a-drained', 40);
    await oracle.until('35 items', () => oracle.callsOf('a-drained').length >= 35, 30_000);
    expect(await a.stop('SIGTERM')).toBe(0);
    const handedBack = await cluster.runs.get('a-drained');
    expect(handedBack).toMatchObject({ status: 'queued', attempt: 0 });
    expect(handedBack?.checkpoint).toMatchObject({ attempt: 1 });

    await startWorker('worker-b');
    const { run } = await cluster.runs.waitForTerminal('a-drained', 60_000);
    // A hand-back is not an attempt: the run resumes as attempt 1 still.
    expect(run).toMatchObject({ status: 'succeeded', attempt: 1, worker: 'worker-b' });
    const from = expectResumed('a-drained');
    expect(from).toBe((handedBack!.checkpoint!.state as { next: number }).next);
  }, 120_000);
});
