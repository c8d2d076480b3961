import { randomBytes } from 'node:crypto';
import { runIdForSlot } from '@drover/core';
import { cancelChannel, SlotClaims, type NewRun, type SlotDecision } from '@drover/store';
import { testRedisClient, testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { QueueConsumer } from './queue-consumer';
import { calls, newRun, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

/**
 * A run armed ahead of its slot asks its slot's claim whether it may start (SlotClaims.startArmed,
 * a Redis round trip) before its handler is called. A cancel that comes while that answer is on
 * its way must still stop the run: these tests cancel it exactly then, by wrapping the real call.
 */
describe('WorkerRuntime: a cancel that comes while an armed run checks its slot claim', () => {
  const realStartArmed = SlotClaims.prototype.startArmed;
  const redis = testRedisClient();
  let p: Harness;
  let w: RuntimeHandle | undefined;

  /** ACL users made for a test, deleted after it. */
  const users: string[] = [];

  afterEach(async () => {
    jest.restoreAllMocks();
    await w?.close();
    w = undefined;
    await p?.close();
    for (const user of users.splice(0)) await redis.acl('DELUSER', user);
  });
  afterAll(() => redis.disconnect());

  /** An armed run of routine `r`, due now, its slot claimed and armed as the scheduler does. */
  async function armedRun(): Promise<NewRun> {
    const now = Date.now();
    const slot = now - 100;
    const claims = new SlotClaims(p.connections.command, p.keys);
    await p.connections.command.hset(p.keys.routineState('r'), { since: now - 60_000, v: 1 });
    const decision: SlotDecision = { kind: 'fire', source: 'schedule', cancel: [], at: now, v: 1 };
    const res = await claims.claim({ routine: 'r', slot, decision, now, armed: { version: 1, queue: 'q' } });
    if (res.kind !== 'claimed') throw new Error(`not armed: ${res.kind}`);
    await claims.finish('r', slot, res.value, now);
    const id = runIdForSlot('r', slot);
    return newRun(id, 'test.count', { routine: 'r', source: 'schedule', scheduledFor: slot, armedVersion: 1 });
  }

  /** Runs `meanwhile` when the worker asks the claim of run `id`, then lets the real call answer. */
  function onStartArmed(meanwhile: () => Promise<void>): string[] {
    const verdicts: string[] = [];
    jest.spyOn(SlotClaims.prototype, 'startArmed').mockImplementation(async function (this: SlotClaims, ...args) {
      await meanwhile();
      const verdict = await realStartArmed.apply(this, args);
      verdicts.push(verdict);
      return verdict;
    });
    return verdicts;
  }

  it('applies a cancel heard over pub/sub meanwhile: the handler never runs and the run ends canceled', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    w = await startRuntime(p.prefix);
    const armed = await armedRun();
    const id = armed.id;
    const heard = jest.spyOn(QueueConsumer.prototype, 'cancel');
    const verdicts = onStartArmed(async () => {
      expect((await p.runs.cancel(id, 'by an operator')).outcome).toBe('cancel-requested');
      await waitFor('the worker to hear the cancel', () => heard.mock.calls.some(([runId]) => runId === id));
    });

    await p.runs.enqueue(armed);
    const { run } = await p.runs.waitForTerminal(id, 10_000);

    // The claim let it start: only the cancel stops it.
    expect(verdicts).toEqual(['start']);
    expect(calls.get(id) ?? 0).toBe(0);
    expect(run).toMatchObject({ status: 'canceled', reason: 'by an operator' });
  });

  it('applies a cancel recorded on the run while the subscriber was away: the resync finds it', async () => {
    const instance = uniquePrefix('warm');
    // The worker logs in as a user of its own, so its subscriber can be kept from coming back (the
    // user switched off) without touching any other connection to the shared test server.
    const user = `w-${instance}`;
    const url = new URL(testRedisUrl());
    url.username = user;
    url.password = randomBytes(12).toString('hex');
    await redis.acl('SETUSER', user, 'reset', 'on', `>${url.password}`, '~*', '&*', '+@all');
    users.push(user);
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    w = await startRuntime(p.prefix, { DROVER_INSTANCE_ID: instance, REDIS_URL: url.toString() });
    const armed = await armedRun();
    const id = armed.id;
    const recheck = jest.spyOn(QueueConsumer.prototype, 'recheckCancels');
    const verdicts = onStartArmed(async () => {
      const line = String(await redis.client('LIST'))
        .split('\n')
        .find((l) => l.includes(`name=drover:${instance}:worker-sub `));
      const subscriber = /\bid=(\d+)/.exec(line ?? '')?.[1];
      expect(subscriber).toBeDefined();
      // Killed, and unable to log in again until the cancel is recorded: the cancel is on the run but
      // its announcement reaches nobody. (The worker's other connections stay logged in.)
      await redis.acl('SETUSER', user, 'off');
      await redis.client('KILL', 'ID', subscriber!);
      expect((await p.runs.cancel(id, 'while away')).outcome).toBe('cancel-requested');
      const [, subscribers] = (await redis.pubsub('NUMSUB', cancelChannel(p.keys))) as [string, number];
      expect(subscribers).toBe(0);
      await redis.acl('SETUSER', user, 'on');
      await waitFor('the worker to re-read cancels after reconnecting', () => recheck.mock.results.length > 0);
      await recheck.mock.results[0]!.value;
    });

    await p.runs.enqueue(armed);
    const { run } = await p.runs.waitForTerminal(id, 10_000);

    expect(verdicts).toEqual(['start']);
    expect(calls.get(id) ?? 0).toBe(0);
    expect(run).toMatchObject({ status: 'canceled', reason: 'while away' });
  });
});
