import type { QueueInput } from '@drover/core';
import { RedisMonitor, testStores } from '@drover/testing';
import { readAwaitingApproval } from '../queues/queue-counts';
import type { NewRun } from './run.store';

type Stores = ReturnType<typeof testStores>;

const QUEUES: QueueInput[] = [
  { name: 'gated', approval: { required: true, expiresAfterMs: 3_600_000 } },
  { name: 'open' },
  { name: 'brief', approval: { required: true, expiresAfterMs: 50 } },
];

const run = (id: string, over: Partial<NewRun> = {}): NewRun => ({
  id,
  routine: null,
  jobType: 'noop',
  queue: 'gated',
  source: 'api',
  scheduledFor: null,
  payload: { n: 1, list: [] },
  ...over,
});

/** The error's code, or 'ok' for a decision taken. */
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: { code?: string }) => err.code ?? String(err),
  );

describe('approval gates against a real redis-server', () => {
  let s: Stores;
  beforeEach(async () => {
    s = testStores('approvals');
    await s.registry.put(QUEUES);
  });
  afterEach(async () => s.close());

  it('holds a run of a gated queue awaiting approval; an approve lets it go once, a second is refused', async () => {
    await s.runs.enqueue(run('g-1'));
    const waiting = await s.runs.get('g-1');
    expect(waiting).toMatchObject({ status: 'awaiting-approval', approval: { required: true, state: 'waiting' } });
    expect(waiting!.approval!.expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
    expect(await s.bull.get('gated').getJobState('g-1')).toBe('delayed');

    const approved = await s.runs.approvals.approve('g-1', { by: 'alice' });
    expect(approved).toMatchObject({ status: 'queued', approval: { state: 'approved', by: 'alice' } });
    expect(approved.approval!.at).toEqual(expect.any(Number));
    expect(await s.bull.get('gated').getJobState('g-1')).toBe('waiting');
    // The payload is untouched by the decision (an empty list stays a list).
    expect((await s.runs.get('g-1'))!.payload).toEqual({ n: 1, list: [] });

    expect(await codeOf(s.runs.approvals.approve('g-1', { by: 'bob' }))).toBe('not-awaiting-approval');
    expect(await codeOf(s.runs.approvals.reject('g-1', { by: 'bob' }))).toBe('not-awaiting-approval');
    expect((await s.runs.get('g-1'))!.approval).toMatchObject({ state: 'approved', by: 'alice' });
  });

  it('a reject ends the run canceled for good; an approve after it is refused', async () => {
    await s.runs.enqueue(run('g-2'));
    const rejected = await s.runs.approvals.reject('g-2', { by: 'carol', reason: 'not today' });
    expect(rejected).toMatchObject({
      status: 'canceled',
      reason: 'not today',
      approval: { state: 'rejected', by: 'carol', reason: 'not today' },
    });
    expect(await s.bull.get('gated').getJob('g-2')).toBeUndefined();
    expect(await s.runs.get('g-2')).toMatchObject({ status: 'canceled', approval: { state: 'rejected' } });
    expect(await codeOf(s.runs.approvals.approve('g-2', { by: 'dave' }))).toBe('not-awaiting-approval');
    expect(await codeOf(s.runs.approvals.reject('g-2', { by: 'dave' }))).toBe('not-awaiting-approval');
  });

  it('of an approve and a reject racing on one run, exactly one is taken', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    await s.runs.enqueueMany(ids.map((id) => run(id)));
    for (const id of ids) {
      const outcomes = await Promise.all([
        codeOf(s.runs.approvals.approve(id, { by: 'a' })),
        codeOf(s.runs.approvals.reject(id, { by: 'r' })),
        codeOf(s.runs.approvals.approve(id, { by: 'a2' })),
      ]);
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'not-awaiting-approval')).toHaveLength(2);
      const view = (await s.runs.get(id))!;
      expect(view.status).toBe(view.approval!.state === 'approved' ? 'queued' : 'canceled');
    }
  });

  it("follows a routine's own gate over its queue's, and refuses a decision on a run that needs none", async () => {
    await s.runs.enqueue(run('own-off', { approval: { required: false } }));
    await s.runs.enqueue(run('own-on', { queue: 'open', approval: { required: true } }));
    await s.runs.enqueue(run('plain', { queue: 'open' }));
    expect(await s.runs.get('own-off')).toMatchObject({ status: 'queued' });
    expect((await s.runs.get('own-off'))!.approval).toBeUndefined();
    expect(await s.runs.get('own-on')).toMatchObject({ status: 'awaiting-approval', approval: { state: 'waiting' } });
    expect((await s.runs.get('own-on'))!.approval!.expiresAt).toBeUndefined();
    expect(await codeOf(s.runs.approvals.approve('plain', { by: 'x' }))).toBe('not-awaiting-approval');
    expect(await codeOf(s.runs.approvals.approve('nope', { by: 'x' }))).toBe('run-not-found');
  });

  it('lists runs awaiting approval by status, and a cancel reaches them', async () => {
    await s.runs.enqueueMany([
      run('w-1'),
      run('w-2'),
      run('o-1', { queue: 'open' }),
      run('d-1', { queue: 'open', delayMs: 60_000 }),
    ]);
    const listed = await s.runs.listRecent({ status: 'awaiting-approval' });
    expect(listed.map((r) => r.id).sort()).toEqual(['w-1', 'w-2']);
    expect((await s.runs.listRecent({ status: 'scheduled' })).map((r) => r.id)).toEqual(['d-1']);
    // The gauge's count: the gated runs still waiting, never a plain delayed run.
    const count = (q: string) => readAwaitingApproval(s.bull, s.connections.command, q);
    expect([await count('gated'), await count('open')]).toEqual([2, 0]);
    expect(await s.runs.cancel('w-2', 'no longer needed')).toMatchObject({ outcome: 'canceled' });
    expect(await codeOf(s.runs.approvals.approve('w-2', { by: 'x' }))).toBe('not-awaiting-approval');
    await s.runs.approvals.approve('w-1', { by: 'x' });
    expect(await count('gated')).toBe(0);
  });

  it('refuses a decision past the expiry and leaves the run to the worker; lets go a decided run a crash left held', async () => {
    await s.runs.enqueue(run('brief-1', { queue: 'brief' }));
    await new Promise((r) => setTimeout(r, 100));
    // No worker took it yet: still held, but past its expiry it is the worker's to reject.
    expect(await codeOf(s.runs.approvals.approve('brief-1', { by: 'late' }))).toBe('not-awaiting-approval');
    expect(await codeOf(s.runs.approvals.reject('brief-1', { by: 'late' }))).toBe('not-awaiting-approval');
    expect(await s.bull.get('brief').getJobState('brief-1')).toBe('delayed');

    // An approve recorded, then the api died before promoting: the next decision is refused and lets it go.
    await s.runs.enqueue(run('crashed'));
    const job = (await s.bull.get('gated').getJob('crashed'))!;
    await job.updateData({ ...job.data, ap: { s: 'a', by: 'alice', at: Date.now() } });
    expect(await s.runs.get('crashed')).toMatchObject({ status: 'scheduled', approval: { state: 'approved' } });
    expect(await codeOf(s.runs.approvals.approve('crashed', { by: 'bob' }))).toBe('not-awaiting-approval');
    expect(await s.bull.get('gated').getJobState('crashed')).toBe('waiting');
  });

  it('an approved run with a future run-at still waits for it', async () => {
    await s.runs.enqueue(run('later', { delayMs: 60_000 }));
    const approved = await s.runs.approvals.approve('later', { by: 'ops' });
    expect(approved).toMatchObject({ status: 'scheduled', approval: { state: 'approved' } });
    const job = (await s.bull.get('gated').getJob('later'))!;
    const due = job.timestamp + job.delay;
    expect(due).toBeGreaterThan(Date.now() + 55_000);
    expect(due).toBeLessThan(Date.now() + 61_000);
  });

  it('an ungated run costs one command to enqueue, as before; a gated one too', async () => {
    // Commands sent to Redis (not those a script runs inside), on this test's keys.
    const monitor = await RedisMonitor.start(undefined, { scripted: false });
    const ours = async () =>
      (await monitor.commands()).filter((args) => args.join(' ').includes(`${s.keys.prefix}:`)).map((args) => args[0]);
    // Warm the policy cache first: the hot path is a fresh ad-hoc run into a known queue.
    await s.runs.enqueue(run('warm', { queue: 'open', freshId: true }));
    await s.runs.enqueue(run('warm-g', { freshId: true }));
    await new Promise((r) => setTimeout(r, 500)); // the policy cache's subscription settles
    await s.runs.enqueue(run('warm-2', { queue: 'open', freshId: true }));
    await s.runs.enqueue(run('warm-g2', { freshId: true }));
    // The hot path's first adds on a connection send their script whole (EVAL), once.
    await s.runs.enqueue(run('warm-3', { queue: 'open', freshId: true }));
    await s.runs.enqueue(run('warm-g3', { freshId: true }));
    await ours();
    await s.runs.enqueue(run('hot', { queue: 'open', freshId: true }));
    const plain = await ours();
    await s.runs.enqueue(run('hot-g', { freshId: true }));
    const gated = await ours();
    monitor.stop();
    expect(plain).toEqual(['evalsha']);
    expect(gated).toEqual(['evalsha']);
  });
});
