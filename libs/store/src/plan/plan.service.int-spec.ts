import { UnrecoverableError, Worker } from 'bullmq';
import { adHocRunId, parseBundle, runIdForSlot, slotsBetween, type Routine } from '@drover/core';
import type { DroverKeys, RedisConnections } from '@drover/redis';
import { testStores, waitFor } from '@drover/testing';
import type { BullQueues } from '../queues/bull-queues';
import type { RoutineStore } from '../routines/routine.store';
import type { RunStore } from '../runs/run.store';
import type { PlanService } from './plan.service';

const MIN = 60_000;

function routine(name: string, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: MIN }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('the read-only plan of a real cluster state (real Redis, real BullMQ)', () => {
  let stores: ReturnType<typeof testStores>;
  let conns: RedisConnections;
  let keys: DroverKeys;
  let bull: BullQueues;
  let runs: RunStore;
  let routines: RoutineStore;
  let planner: PlanService;
  let now: number;

  beforeEach(async () => {
    stores = testStores('plan');
    ({ connections: conns, keys, bull, runs, routines, plan: planner } = stores);
    await stores.registry.put([
      { name: 'default', globalConcurrency: 1 },
      { name: 'side', maxAttempts: 1 },
    ]);
    now = Date.now();
  });

  afterEach(async () => {
    await stores.close();
  });

  /** Every key of this test's prefix with its serialized value: a plan must change none. */
  async function snapshot(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const key of await conns.command.keys(`${keys.prefix}:*`)) {
      out.set(key, ((await conns.command.dumpBuffer(key)) ?? Buffer.alloc(0)).toString('base64'));
    }
    return out;
  }

  it('says what fires, what starts next, and why the rest waits — and writes nothing', async () => {
    // A routine whose slot is due, one paused with a note and an end, one backing off.
    await routines.upsert(routine('due'), 'api', now - 2 * MIN);
    await routines.upsert(routine('napping'), 'api', now - 2 * MIN);
    await routines.pause('napping', { at: now, by: 'alice', note: 'freeze', until: now + MIN }, now);
    await routines.upsert(routine('flaky', { condition: 'x' }), 'api', now - 2 * MIN);
    await routines.advanceCursor('flaky', undefined, { consecutiveFailures: 1, nextAttemptAt: now + 5_000 });
    // A forbid routine whose open-run list names a run long gone (a dispatcher would prune it).
    await routines.upsert(routine('exclusive', { concurrencyPolicy: 'forbid' }), 'api', now);
    await conns.command.zadd(keys.routineOpen('exclusive'), 1, 'default:r-exclusive-1');
    // Three ad-hoc runs in a queue whose ceiling is 1, and a run parked in another queue.
    const adHoc = (id: string, queue: string) =>
      runs.enqueue({ id, routine: null, jobType: 'noop', queue, source: 'api', scheduledFor: null, payload: {} });
    const ids = [1, 2, 3].map((i) => adHocRunId(now + i, () => i / 10));
    for (const id of ids) await adHoc(id, 'default');
    await adHoc('a-doomed', 'side');
    const worker = new Worker(
      keys.bullQueueName('side'),
      async () => {
        throw new UnrecoverableError('the payload can never work');
      },
      { connection: conns.open('blocking', 'w'), prefix: keys.bullPrefix },
    );
    await waitFor('the run to be parked', async () => (await bull.get('side').getFailedCount()) === 1);
    await worker.close();

    // A worker consumes the default queue (10 at a time; the ceiling of 1 still holds).
    await stores.catalog.publish(
      {
        instanceId: 'w1',
        nonce: 'n',
        version: 't',
        pid: 1,
        hostname: 'h',
        queues: [{ name: 'default', concurrency: 10 }],
        jobTypes: ['noop'],
        startedAt: now,
        heartbeatAt: now,
        draining: false,
      },
      60_000,
    );
    const before = await snapshot();
    const result = await planner.plan();
    const at = result.now;
    expect(await snapshot()).toEqual(before);

    // Every slot since it was created is due: those within the misfire grace (60 s) fire, older
    // ones were missed and are recorded skipped (catchUpPolicy skip).
    const due = slotsBetween({ kind: 'interval', everyMs: MIN }, now - 2 * MIN, at).slots;
    expect(result.fires.map((f) => [f.routine, f.slot, f.source])).toEqual(
      due.filter((slot) => at - slot <= MIN).map((slot) => ['due', slot, 'schedule']),
    );
    expect(result.skips).toEqual(
      due.filter((slot) => at - slot > MIN).map((slot) => ({ routine: 'due', slot, reason: 'catch-up-skip' })),
    );
    expect(result.fires.map((f) => f.runId)).toEqual(result.fires.map((f) => runIdForSlot('due', f.slot)));
    expect(result.waiting).toEqual(
      expect.arrayContaining([
        {
          subject: { kind: 'routine', name: 'napping' },
          reason: 'paused',
          detail: 'paused by alice "freeze"',
          until: now + MIN,
        },
        { subject: { kind: 'routine', name: 'flaky' }, reason: 'backing-off', until: now + 5_000 },
      ]),
    );
    // One start under the ceiling of 1: the oldest ready work, the due routine's fire; the three
    // ad-hoc runs wait for the ceiling.
    expect(result.starts).toEqual([
      { runId: result.fires[0]!.runId, queue: 'default', routine: 'due', fromFire: true },
    ]);
    expect(result.waiting.filter((w) => w.reason === 'ceiling-reached').map((w) => w.subject)).toEqual(
      expect.arrayContaining(ids.map((id) => ({ kind: 'run', id, queue: 'default' }))),
    );
    expect(result.waiting).toContainEqual({
      subject: { kind: 'run', id: 'a-doomed', queue: 'side' },
      reason: 'parked',
    });
    expect(result.truncated).toEqual([]);
  });

  it('reads a bounded part of a long queue and says so', async () => {
    for (let i = 0; i < 5; i++) {
      await runs.enqueue({
        id: `a-${i}`,
        routine: null,
        jobType: 'noop',
        queue: 'default',
        source: 'api',
        scheduledFor: null,
        payload: {},
      });
    }
    const result = await planner.plan({ runsPerQueue: 2 });
    expect(result.truncated).toEqual(['default']);
    // No worker consumes the queue: that, not the ceiling, is why they wait.
    expect(result.starts).toEqual([]);
    expect(result.waiting.map((w) => w.reason)).toEqual(['no-workers', 'no-workers']);
  });
});
