import { uniquePrefix, waitFor } from '@drover/testing';
import {
  failing,
  metric,
  newRun,
  producer,
  startRuntime,
  type Harness,
  type RuntimeHandle,
} from './testing/runtime-harness';

describe('attempts of a run that stores none (against a real redis-server)', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  const storedOpts = async (id: string): Promise<Record<string, unknown>> =>
    JSON.parse((await p.connections.command.hget(p.bull.keys.bullJob('q', id), 'opts')) ?? '{}');

  it("follows its queue's current maxAttempts; a run with its own keeps it", async () => {
    const backoff = { type: 'fixed', delayMs: 20 } as const;
    p = await producer(uniquePrefix('att'), [{ name: 'q', maxAttempts: 2, backoff }]);
    failing.on = true;
    await p.runs.enqueueMany([newRun('a-lean', 'test.fail'), newRun('a-own', 'test.fail', { maxAttempts: 1 })]);
    // Only the run that overrides its queue's stores `attempts`.
    expect(await storedOpts('a-lean')).not.toHaveProperty('attempts');
    expect(await storedOpts('a-own')).toMatchObject({ attempts: 1 });
    expect(await p.runs.get('a-lean')).toMatchObject({ status: 'queued', maxAttempts: 2 });

    // The queue's policy changes while the run waits: the run follows it.
    await p.registry.put([{ name: 'q', maxAttempts: 3, backoff }]);
    await waitFor('the queued run to read the new policy', async () => (await p.runs.get('a-lean'))?.maxAttempts === 3);
    w = await startRuntime(p.prefix);
    const { run: lean } = await p.runs.waitForTerminal('a-lean', 10_000);
    expect(lean).toMatchObject({ status: 'parked', attempt: 3, maxAttempts: 3, reason: 'attempts-exhausted' });
    expect(lean!.errors!.map((e) => e.attempt)).toEqual([1, 2, 3]);
    const { run: own } = await p.runs.waitForTerminal('a-own', 10_000);
    expect(own).toMatchObject({ status: 'parked', attempt: 1, maxAttempts: 1 });
    expect(await metric(w.metrics, 'retried')).toBe(2);
  });

  it("shows a handler its run's producer by name and its queue's maxAttempts", async () => {
    p = await producer(uniquePrefix('att'), [{ name: 'q', maxAttempts: 4 }]);
    await p.runs.reading.producers.register('billing');
    await p.runs.enqueue(newRun('a-coded', 'test.echo', { createdBy: 'billing' }));
    expect(JSON.parse((await p.connections.command.hget(p.bull.keys.bullJob('q', 'a-coded'), 'data'))!)).toEqual({
      payload: {},
      by: expect.any(String),
    });
    // A worker process that has never seen the code reads it once.
    w = await startRuntime(p.prefix);
    const { run } = await p.runs.waitForTerminal('a-coded', 10_000);
    expect(run?.result).toEqual({ echo: {}, attempt: 1, maxAttempts: 4, createdBy: 'billing' });
  });
});
