import { uniquePrefix, waitFor } from '@drover/testing';
import { calls, newRun, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

/**
 * What a worker does with a gated run it is handed, judged by the gate in the data it holds: an
 * approved run runs once; one released by its expiry while still waiting ends canceled
 * (`approval-expired`) without its handler; one released early (promoted by hand here, as a worker
 * whose clock runs ahead would take it) goes back to wait until its expiry.
 */
describe('WorkerRuntime: approval gates', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  it('runs an approved run once, ends an expired one canceled, and sends back one released early', async () => {
    p = await producer(uniquePrefix('rt'), [
      { name: 'q', approval: { required: true, expiresAfterMs: 60_000 } },
      { name: 'brief', approval: { required: true, expiresAfterMs: 300 } },
    ]);
    w = await startRuntime(p.prefix);
    const prefix = uniquePrefix('gate');
    const [ok, early, expiring] = [`${prefix}-ok`, `${prefix}-early`, `${prefix}-exp`];
    await p.runs.enqueue(newRun(ok, 'test.count'));
    await p.runs.enqueue(newRun(early, 'test.count'));
    await p.runs.enqueue(newRun(expiring, 'test.count', { queue: 'brief' }));

    await p.runs.approvals.approve(ok, { by: 'ops' });
    expect((await p.runs.waitForTerminal(ok, 10_000)).run).toMatchObject({ status: 'succeeded' });

    const { run: expired } = await p.runs.waitForTerminal(expiring, 10_000);
    expect(expired).toMatchObject({ status: 'canceled', reason: 'approval-expired', approval: { state: 'expired' } });

    // Released before its expiry: the worker hands it back, it waits again, undecided.
    await (await p.bull.get('q').getJob(early))!.promote();
    await waitFor('the early run to be held back again', async () =>
      (await p.bull.get('q').getJobState(early)) === 'delayed' && (await p.runs.get(early))?.attempt === 0
        ? true
        : undefined,
    );
    expect(await p.runs.get(early)).toMatchObject({ status: 'awaiting-approval', approval: { state: 'waiting' } });
    await p.runs.approvals.approve(early, { by: 'ops' });
    await p.runs.waitForTerminal(early, 10_000);

    expect([calls.get(ok), calls.get(early), calls.get(expiring) ?? 0]).toEqual([1, 1, 0]);
  }, 30_000);
});
