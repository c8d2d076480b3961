import { parseBundle, type Routine } from '@drover/core';
import { runOfRoutine, type NewRun } from '@drover/store';
import { uniquePrefix } from '@drover/testing';
import { calls, gate, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

const MIN = 60_000;

function bufferOne(): Routine {
  const res = parseBundle({
    queues: [{ name: 'q' }],
    routines: [
      {
        name: 'buf',
        jobType: 'test.block',
        queue: 'q',
        trigger: { kind: 'interval', everyMs: MIN },
        concurrencyPolicy: 'buffer-one',
        maxAttempts: 1,
      },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/** A slot's run of the routine, as the scheduler makes it (`behind`: buffered behind that run). */
function slotRun(def: Routine, slot: number, over: Partial<NewRun> & { behind?: string } = {}): NewRun {
  const { behind, ...rest } = over;
  const id = `r-buf-${slot}`;
  return {
    ...runOfRoutine(def, {
      id,
      source: 'schedule',
      scheduledFor: slot,
      createdBy: 'scheduler',
      ...(behind && { bufferedBehind: behind }),
    }),
    ...rest,
  };
}

/**
 * buffer-one against a real worker runtime and Redis: the buffered run is held (a delayed job far
 * ahead) while its routine's run is active, and the worker that settles that run — succeeded,
 * parked or canceled — starts it; asking again changes nothing.
 */
describe('a buffered run starts when the active run of its routine ends (real worker, real Redis)', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;
  const def = bufferOne();

  beforeEach(async () => {
    p = await producer(uniquePrefix('buf'), [{ name: 'q' }]);
    w = await startRuntime(p.prefix);
  });

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p.close();
  });

  async function bufferBehindActive(kind: 'block' | 'permanent') {
    const slot = Date.now() - 10 * MIN;
    const active = slotRun(def, slot, kind === 'permanent' ? { jobType: 'test.permanent' } : {});
    const buffered = slotRun(def, slot + MIN, { behind: active.id, jobType: 'test.count' });
    if (kind === 'block') {
      await p.runs.enqueue(active);
      await gate(active.id).started;
      await p.runs.enqueue(buffered);
      // The dispatcher asks right after making it: the active run still runs, nothing starts.
      expect(await p.runs.startBuffered('buf')).toBeUndefined();
      expect(await p.runs.get(buffered.id)).toMatchObject({ status: 'scheduled', bufferedBehind: active.id });
    } else {
      // Made while the active one waits in its queue (no worker takes it before the buffered run exists).
      await w!.close();
      await p.runs.enqueue(active);
      await p.runs.enqueue(buffered);
      w = await startRuntime(p.prefix);
    }
    return { active: active.id, buffered: buffered.id };
  }

  async function startsAfter(active: string, buffered: string, status: string) {
    const { run: a } = await p.runs.waitForTerminal(active, 10_000);
    expect(a!.status).toBe(status);
    const { run: b } = await p.runs.waitForTerminal(buffered, 10_000);
    expect(b).toMatchObject({ status: 'succeeded', bufferedBehind: active });
    expect(b!.startedAt!).toBeGreaterThanOrEqual(a!.finishedAt!);
    expect(calls.get(buffered)).toBe(1);
    // Asked again (a late settler, the leader's repair): nothing more starts.
    expect(await p.runs.startBuffered('buf')).toBeUndefined();
  }

  it('after it succeeds', async () => {
    const { active, buffered } = await bufferBehindActive('block');
    gate(active).release();
    await startsAfter(active, buffered, 'succeeded');
    // The buffered run's wait is by design: fire lateness counts the active run only.
    const lateness = (await w!.metrics.fireLateness.get()).values.find((v) => v.metricName?.endsWith('_count'));
    expect(lateness?.value).toBe(1);
  });

  it('after it fails for good (parked)', async () => {
    const { active, buffered } = await bufferBehindActive('permanent');
    await startsAfter(active, buffered, 'parked');
  });

  it('after it is canceled while running', async () => {
    const { active, buffered } = await bufferBehindActive('block');
    expect((await p.runs.cancel(active, 'operator')).outcome).toBe('cancel-requested');
    await startsAfter(active, buffered, 'canceled');
  });

  it('after it is canceled while queued, and never while it is active', async () => {
    await w!.close();
    w = undefined;
    const slot = Date.now() - 10 * MIN;
    const active = slotRun(def, slot);
    const buffered = slotRun(def, slot + MIN, { behind: active.id, jobType: 'test.count' });
    await p.runs.enqueue(active);
    await p.runs.enqueue(buffered);
    expect(await p.runs.startBuffered('buf')).toBeUndefined();
    expect((await p.runs.cancel(active.id, 'operator')).outcome).toBe('canceled');
    // The cancel asked: the buffered run waits in its queue for a worker now.
    expect(await p.runs.get(buffered.id)).toMatchObject({ status: 'queued', bufferedBehind: active.id });
  });
});

describe('starting a buffered run is idempotent (real Redis)', () => {
  let p: Harness;

  afterEach(async () => {
    await p.close();
  });

  it('many asks at once promote it once; none starts it while another run of the routine is active', async () => {
    p = await producer(uniquePrefix('buf'), [{ name: 'q' }]);
    const def = bufferOne();
    const slot = Date.now() - 10 * MIN;
    const manual = { ...slotRun(def, slot), id: 'm-buf-1', source: 'manual' as const };
    const buffered = slotRun(def, slot + MIN, { behind: 'r-buf-gone' });
    await p.runs.enqueue(manual);
    await p.runs.enqueue(buffered);
    // Another run of the routine (here a manual one) is queued: the buffered one waits for it too.
    expect(await Promise.all([1, 2, 3].map(() => p.runs.startBuffered('buf')))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    await p.runs.cancel(manual.id);
    expect(await p.runs.get(buffered.id)).toMatchObject({ status: 'queued' });
    const asks = await Promise.all([1, 2, 3, 4].map(() => p.runs.startBuffered('buf')));
    expect(asks).toEqual([undefined, undefined, undefined, undefined]);
    // A manual run ranked the queue: the promoted run waits among the prioritized.
    const counts = await p.bull.get('q').getJobCounts('wait', 'prioritized', 'delayed');
    expect(counts).toEqual({ wait: 0, prioritized: 1, delayed: 0 });
  });

  it('concurrent asks on a waiting run: exactly one promotes it', async () => {
    p = await producer(uniquePrefix('buf'), [{ name: 'q' }]);
    const def = bufferOne();
    const buffered = slotRun(def, Date.now() - MIN, { behind: 'r-buf-ended' });
    await p.runs.enqueue(buffered);
    const asks = await Promise.all([1, 2, 3, 4, 5].map(() => p.runs.startBuffered('buf')));
    expect(asks.filter((a) => a === buffered.id)).toHaveLength(1);
    expect(await p.bull.get('q').getWaitingCount()).toBe(1);
    expect(await p.runs.get(buffered.id)).toMatchObject({ status: 'queued', bufferedBehind: 'r-buf-ended' });
  });
});
