import { runIdForSlot } from '@drover/core';
import { SlotClaims, type SlotDecision } from '@drover/store';
import { uniquePrefix } from '@drover/testing';
import { calls, newRun, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

/**
 * A jittered slot's run carries its planned start (`startAt`, after its slot): the worker that takes
 * it early — armed with a lead, or promoted by BullMQ ahead — holds it until then, not until the slot.
 */
describe('WorkerRuntime: a jittered run starts at its planned start, not at its slot', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;
  const began = new Map<string, number>();

  beforeEach(() => {
    const set = Map.prototype.set;
    jest.spyOn(calls, 'set').mockImplementation(function (this: Map<string, number>, id: string, n: number) {
      if (!began.has(id)) began.set(id, Date.now());
      return set.call(this, id, n) as Map<string, number>;
    });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await w?.close();
    w = undefined;
    await p?.close();
  });

  it('holds an armed run taken ahead until slot + offset, then checks its claim and starts it once', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    w = await startRuntime(p.prefix);
    const now = Date.now();
    const slot = now - 200;
    const startAt = now + 1_200;
    const claims = new SlotClaims(p.connections.command, p.keys);
    await p.connections.command.hset(p.keys.routineState('r'), { since: now - 60_000, v: 1 });
    const decision: SlotDecision = { kind: 'fire', source: 'schedule', cancel: [], at: now, v: 1 };
    const res = await claims.claim({ routine: 'r', slot, decision, now, armed: { version: 1, queue: 'q' } });
    if (res.kind !== 'claimed') throw new Error(`not armed: ${res.kind}`);
    await claims.finish('r', slot, res.value, now, startAt);
    const id = runIdForSlot('r', slot);
    // Released at once (as by the arming lead): the worker takes it 1.2 s before its planned start.
    await p.runs.enqueue(
      newRun(id, 'test.count', { routine: 'r', source: 'schedule', scheduledFor: slot, startAt, armedVersion: 1 }),
    );
    const { run } = await p.runs.waitForTerminal(id, 10_000);
    expect(run).toMatchObject({ status: 'succeeded', scheduledFor: slot });
    expect(calls.get(id)).toBe(1);
    expect(began.get(id)).toBeGreaterThanOrEqual(startAt);
  });

  it('holds a run decided at its fire (not armed) until its planned start too', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    w = await startRuntime(p.prefix);
    const slot = Date.now();
    const startAt = slot + 1_000;
    const id = runIdForSlot('plain', slot);
    await p.runs.enqueue(
      newRun(id, 'test.count', { routine: 'plain', source: 'schedule', scheduledFor: slot, startAt }),
    );
    await p.runs.waitForTerminal(id, 10_000);
    expect(calls.get(id)).toBe(1);
    expect(began.get(id)).toBeGreaterThanOrEqual(startAt);
  });
});
