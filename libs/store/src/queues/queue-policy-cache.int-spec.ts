import type { Redis } from 'ioredis';
import { ManualClock, testRedisClient, testStores, uniquePrefix, waitFor } from '@drover/testing';
import type { Stores } from '../create-stores';
import type { NewRun } from '../runs/new-run';
import { InvalidPayloadError } from '@drover/core';
import { UnknownQueueError } from './queue-registry.store';

type Producer = Stores & { close(): Promise<void> };

// A clock that never moves: a cached entry can only be dropped by a change message, never by age.
const FROZEN = 1_800_000_000_000;

const adHoc = (id: string, over: Partial<NewRun> = {}): NewRun => ({
  id,
  routine: null,
  jobType: 'noop',
  queue: 'q',
  source: 'api',
  scheduledFor: null,
  payload: {},
  freshId: true,
  ...over,
});

/** Waits until `producer` refuses an enqueue into `q` as an unknown queue (it learned of the removal). */
async function untilRefused(producer: Producer, what: string): Promise<void> {
  await waitFor(
    what,
    () =>
      producer.runs.enqueue(adHoc(`a-${Math.random()}`)).then(
        () => false,
        (err: unknown) => err instanceof UnknownQueueError,
      ),
    { timeoutMs: 3_000, intervalMs: 20 },
  );
}

describe('QueuePolicyCache (what enqueue knows about queues)', () => {
  let a: Producer;
  let b: Producer;
  beforeEach(async () => {
    const prefix = uniquePrefix('qpc');
    a = testStores('qpc-a', { prefix, clock: new ManualClock(FROZEN) });
    b = testStores('qpc-b', { prefix, clock: new ManualClock(FROZEN) });
    await a.registry.put([{ name: 'q' }, { name: 'other' }]);
    await a.runs.policies.whenLive();
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('sends one Redis command for a turn’s ad-hoc enqueues once the queue is known (their adds, together)', async () => {
    await a.runs.enqueue(adHoc('a-warm'));
    await a.runs.enqueue(adHoc('a-warm-2'));
    const sent: string[] = [];
    const conn = a.connections.command;
    const original = conn.sendCommand.bind(conn);
    conn.sendCommand = ((cmd: { name: string }) => {
      sent.push(cmd.name);
      return original(cmd as never);
    }) as typeof conn.sendCommand;
    // And the socket's writes: one for the turn's enqueues (see AddsTogether).
    const socket = (conn as Redis).stream as unknown as Record<'_write' | '_writev', (...a: unknown[]) => void>;
    const writes: string[] = [];
    const [write, writev] = [socket._write, socket._writev];
    socket._write = (...args) => (writes.push('write'), write.apply(socket, args));
    socket._writev = (...args) => (writes.push('writev'), writev.apply(socket, args));
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => a.runs.enqueue(adHoc(`a-${i}`))));
    } finally {
      conn.sendCommand = original;
      Object.assign(socket, { _write: write, _writev: writev });
    }
    expect(sent).toEqual(['evalsha']);
    expect(writes).toHaveLength(1);
    expect(await a.bull.get('q').getWaitingCount()).toBe(22);
  });

  it('drops a removed queue at once when the registry announces it, with no clock to expire it', async () => {
    await a.runs.enqueue(adHoc('a-1'));
    await b.registry.put([{ name: 'other' }]);
    await untilRefused(a, 'the removal to reach producer a');
  });

  it('forgets what it knew when its subscription drops, so a change announced meanwhile is not missed', async () => {
    await a.runs.enqueue(adHoc('a-1'));
    const redis = testRedisClient();
    try {
      const list = await redis.client('LIST');
      const sub = String(list)
        .split('\n')
        .find((l) => l.includes(`name=drover:qpc-a:policy-sub`) && l.includes(`sub=2`));
      const id = /\bid=(\d+)/.exec(sub ?? '')?.[1];
      expect(id).toBeDefined();
      // Killed, then the queue removed before ioredis reconnects (its first retry waits 50 ms):
      // the announcement reaches nobody.
      await redis.client('KILL', 'ID', id!);
      await b.registry.put([{ name: 'other' }]);
    } finally {
      redis.disconnect();
    }
    await untilRefused(a, 'producer a to stop using the removed queue');
  });

  it('learns that another producer ranked a queue: its next runs carry a BullMQ priority', async () => {
    await a.runs.enqueue(adHoc('a-fifo'));
    expect((await a.bull.get('q').getJob('a-fifo'))?.opts.priority ?? 0).toBe(0);
    // A manual run ranks the queue (served before everything else).
    await b.runs.enqueue(adHoc('m-1', { source: 'manual' }));
    let n = 0;
    await waitFor(
      'producer a to rank its runs',
      async () => {
        const id = `a-after-${n++}`;
        await a.runs.enqueue(adHoc(id));
        return ((await a.bull.get('q').getJob(id))?.opts.priority ?? 0) > 0;
      },
      { timeoutMs: 3_000, intervalMs: 20 },
    );
  });

  it('ranks its own next run at once after ranking the queue, without waiting for its own message', async () => {
    await a.runs.enqueue(adHoc('a-warm'));
    expect(a.runs.policies.peek('q')).toMatchObject({ ranked: false });
    // Its change messages are not heard (as when they arrive late): only what it did itself counts.
    Object.assign(a.runs.policies, { invalidate: () => undefined });
    await a.runs.enqueue(adHoc('m-rank', { source: 'manual' }));
    await a.runs.enqueue(adHoc('a-next'));
    expect((await a.bull.get('q').getJob('a-next'))?.opts.priority ?? 0).toBeGreaterThan(0);
  });

  it('checks on the fast path what the slow one does: the payload, and the first run that ranks the queue', async () => {
    await a.runs.enqueue(adHoc('a-warm'));
    expect(a.runs.policies.peek('q')).toMatchObject({ ranked: false });
    await expect(a.runs.enqueue(adHoc('a-bad', { payload: { n: Number.NaN } }))).rejects.toThrow(InvalidPayloadError);
    expect(await a.bull.get('q').getJob('a-bad')).toBeUndefined();
    // A high-priority run into the unranked queue ranks it (for every producer) and carries a priority.
    await a.runs.enqueue(adHoc('a-urgent', { priority: 10 }));
    expect((await a.bull.get('q').getJob('a-urgent'))?.opts.priority ?? 0).toBeGreaterThan(0);
    await waitFor('producer b to see the queue ranked', async () => (await b.runs.policies.get('q')).ranked, {
      timeoutMs: 3_000,
      intervalMs: 20,
    });
  });

  it('still finds an existing idempotent run in another queue (answers created: false)', async () => {
    await a.runs.enqueue({ ...adHoc('k-1', { queue: 'other' }), freshId: false });
    const res = await a.runs.enqueue({ ...adHoc('k-1'), freshId: false, anyQueue: true });
    expect(res).toEqual({ id: 'k-1', created: false });
    expect(await a.bull.get('q').getJob('k-1')).toBeUndefined();
  });

  it('knows the queue names without waiting once read, and forgets them when a queue is defined', async () => {
    expect(a.runs.policies.peekNames()).toBeUndefined();
    await a.runs.enqueue({ ...adHoc('k-warm'), freshId: false, anyQueue: true });
    expect([...(a.runs.policies.peekNames() ?? [])].sort()).toEqual(['other', 'q']);
    await b.registry.put([{ name: 'q' }, { name: 'other' }, { name: 'late' }]);
    await waitFor('producer a to forget the names', () => a.runs.policies.peekNames() === undefined, {
      timeoutMs: 3_000,
      intervalMs: 20,
    });
    // The key's run in the new queue: a keyed enqueue into q guards against it too.
    await b.runs.enqueue({ ...adHoc('k-1', { queue: 'late' }), freshId: false });
    expect(await a.runs.enqueue({ ...adHoc('k-1'), freshId: false, anyQueue: true })).toEqual({
      id: 'k-1',
      created: false,
    });
    expect(await a.bull.get('q').getJob('k-1')).toBeUndefined();
  });
});
