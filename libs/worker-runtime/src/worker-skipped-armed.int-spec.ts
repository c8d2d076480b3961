import { runIdForSlot } from '@drover/core';
import { FIRES_QUEUE, refireJobId, SlotClaims, type NewRun, type SlotDecision } from '@drover/store';
import { uniquePrefix } from '@drover/testing';
import { calls, newRun, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

/**
 * An operator's skip of an armed slot is stored at once, and the leader withdraws the armed run
 * once it hears of it. A worker that checks the run's claim in between reads the skip itself: the
 * run never starts, and its slot is refired so the scheduler records the skip.
 */
describe('WorkerRuntime: an armed run whose slot was skipped before the leader withdrew it', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  it('never runs its handler, ends canceled and asks for its slot to be refired', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    const now = Date.now();
    const slot = now - 100;
    const claims = new SlotClaims(p.connections.command, p.keys);
    await p.connections.command.hset(p.keys.routineState('r'), { since: now - 60_000, v: 1 });
    const decision: SlotDecision = { kind: 'fire', source: 'schedule', cancel: [], at: now, v: 1 };
    const res = await claims.claim({ routine: 'r', slot, decision, now, armed: { version: 1, queue: 'q' } });
    if (res.kind !== 'claimed') throw new Error(`not armed: ${res.kind}`);
    await claims.finish('r', slot, res.value, now);
    // Stored as skipSlot stores it; no leader runs here to withdraw the run.
    await p.connections.command.hset(p.keys.routineSkips('r'), String(slot), JSON.stringify({ by: 'op', at: now }));
    const id = runIdForSlot('r', slot);
    const armed: NewRun = newRun(id, 'test.count', {
      routine: 'r',
      source: 'schedule',
      scheduledFor: slot,
      armedVersion: 1,
    });

    w = await startRuntime(p.prefix);
    await p.runs.enqueue(armed);
    const { run } = await p.runs.waitForTerminal(id, 10_000);

    expect(calls.get(id) ?? 0).toBe(0);
    expect(run).toMatchObject({ status: 'canceled' });
    expect(run?.reason).toMatch(/operator skipped its slot/);
    expect(await claims.get('r', slot)).toMatchObject({ arm: 'revoked' });
    const refire = await p.runs.bull.get(FIRES_QUEUE).getJob(refireJobId('r', slot, 0));
    expect(refire?.data).toEqual({ routine: 'r' });
  });
});
