import { runIdForSlot } from '@drover/core';
import { SlotClaims, type SlotDecision } from '@drover/store';
import { uniquePrefix } from '@drover/testing';
import {
  calls,
  gate,
  newRun,
  producer,
  startRuntime,
  type Harness,
  type RuntimeHandle,
} from './testing/runtime-harness';

/**
 * Armed runs held for the same slot on a queue of concurrency 1: the first takes the one place at
 * the slot, the second waits for it. The second's claim is checked at the slot, while it waits, not
 * once it gets the place: so runs due together share that round trip, and from the slot on an edit
 * of the routine no longer withdraws a run that is only waiting for a place.
 */
describe('WorkerRuntime: the armed-run check of a held run', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    // A run still blocked (the test failed early) would hold the worker's close.
    for (const g of gates.values()) g.release();
    await w?.close();
    w = undefined;
    await p?.close();
  });

  async function until(what: string, ok: () => Promise<boolean>, ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (!(await ok())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('is made at the slot while the run waits for a place, and the run then starts once', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', concurrency: 1 }]);
    const claims = new SlotClaims(p.connections.command, p.keys);
    const now = Date.now();
    const slot = now + 1_200;
    const ids: string[] = [];
    for (const routine of ['first', 'second']) {
      await p.connections.command.hset(p.keys.routineState(routine), { since: now - 60_000, v: 1 });
      const decision: SlotDecision = { kind: 'fire', source: 'schedule', cancel: [], at: now, v: 1 };
      const res = await claims.claim({ routine, slot, decision, now, armed: { version: 1, queue: 'q' } });
      if (res.kind !== 'claimed') throw new Error(`not armed: ${res.kind}`);
      await claims.finish(routine, slot, res.value, now);
      ids.push(runIdForSlot(routine, slot));
    }
    const [first, second] = ids as [string, string];

    w = await startRuntime(p.prefix);
    // Both are taken ahead of the slot and held; the first is enqueued first, so it is first at the gate.
    await p.runs.enqueue(
      newRun(first, 'test.block', { routine: 'first', source: 'schedule', scheduledFor: slot, armedVersion: 1 }),
    );
    await p.runs.enqueue(
      newRun(second, 'test.count', { routine: 'second', source: 'schedule', scheduledFor: slot, armedVersion: 1 }),
    );
    await gate(first).started;
    expect(Date.now()).toBeGreaterThanOrEqual(slot);

    // The second waits for the place the first holds, and its claim already reads started.
    await until(
      'the second run to be checked',
      async () => (await claims.get('second', slot))?.arm === 'started',
      5_000,
    );
    expect(calls.get(second) ?? 0).toBe(0);

    // An edit now comes after the slot's check: the run waiting for a place is not withdrawn.
    await p.connections.command.hset(p.keys.routineState('second'), 'v', 2);
    gate(first).release();
    const { run } = await p.runs.waitForTerminal(second, 10_000);
    expect(run).toMatchObject({ status: 'succeeded' });
    expect(calls.get(second)).toBe(1);
  });
});
