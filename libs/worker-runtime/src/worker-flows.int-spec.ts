import { enqueueFlow, PARENT_CANCELED_REASON, type FlowItem, type NewRun } from '@drover/store';
import { uniquePrefix, waitFor } from '@drover/testing';
import { flowLog, producer, startRuntime, newRun, type Harness, type RuntimeHandle } from './testing/runtime-harness';

let seq = 0;
/** A `test.flow` run named `name` (its handler logs `start:<name>` / `end:<name>`) on `queue`. */
const node = (name: string, queue: string, extra: Partial<{ ms: number; fail: boolean }> = {}): NewRun =>
  newRun(`a-flow-${++seq}-${name}`, 'test.flow', { queue, payload: { name, ...extra }, freshId: true });
const item = (run: NewRun, children: FlowItem[] = [], onFailure?: 'fail' | 'ignore'): FlowItem => ({
  item: { run },
  ...(children.length && { children }),
  ...(onFailure && { onFailure }),
});

describe('flows on real workers: a parent runs once, after its children (real redis-server)', () => {
  let p: Harness;
  let workers: RuntimeHandle[] = [];

  beforeEach(async () => {
    flowLog.edges.length = 0;
    flowLog.children.clear();
    p = await producer(uniquePrefix('flow'), [
      { name: 'reports', maxAttempts: 1 },
      { name: 'etl', concurrency: 4, maxAttempts: 1 },
      { name: 'mail', maxAttempts: 1 },
      { name: 'keyed', concurrencyKey: { source: 'payload.name', limit: 1 } },
      { name: 'gated', maxAttempts: 1, approval: { required: true } },
    ]);
  });

  afterEach(async () => {
    await Promise.all(workers.map((w) => w.close()));
    workers = [];
    await p?.close();
  });

  const startWorkers = async (queues = 'reports,etl,mail') => {
    workers.push(
      await startRuntime(p.prefix, { DROVER_INSTANCE_ID: `flow-w${workers.length}`, DROVER_QUEUES: queues }),
    );
  };
  const count = (edge: string) => flowLog.edges.filter((e) => e === edge).length;

  it('runs every child (on other queues, nested) before its parent, each once; the parent reads their results', async () => {
    const top = node('top', 'reports');
    const mid = node('mid', 'etl');
    const leafA = node('leafA', 'etl', { ms: 150 });
    const leafB = node('leafB', 'mail', { ms: 50 });
    const side = node('side', 'mail');
    const ids = await enqueueFlow(p.runs.flows, item(top, [item(mid, [item(leafA), item(leafB)]), item(side)]));
    expect(ids).toEqual({
      id: top.id,
      children: [{ id: mid.id, children: [{ id: leafA.id }, { id: leafB.id }] }, { id: side.id }],
    });
    const waiting = await p.runs.get(top.id);
    expect(waiting).toMatchObject({ status: 'queued', waitingForChildren: true });
    expect(waiting?.flow?.children).toEqual([
      { id: mid.id, queue: 'etl', jobType: 'test.flow', status: 'queued', onFailure: 'fail', children: 2 },
      { id: side.id, queue: 'mail', jobType: 'test.flow', status: 'queued', onFailure: 'fail', children: 0 },
    ]);
    await startWorkers();
    await waitFor('the top run to succeed', async () => (await p.runs.get(top.id))?.status === 'succeeded', {
      timeoutMs: 15_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    for (const name of ['top', 'mid', 'leafA', 'leafB', 'side']) expect(count(`start:${name}`)).toBe(1);
    const at = (e: string) => flowLog.edges.indexOf(e);
    expect(at('start:mid')).toBeGreaterThan(Math.max(at('end:leafA'), at('end:leafB')));
    expect(at('start:top')).toBeGreaterThan(Math.max(at('end:mid'), at('end:side')));
    expect(flowLog.children.get('top')).toEqual([
      { id: mid.id, queue: 'etl', jobType: 'test.flow', status: 'succeeded', result: { made: 'mid' } },
      { id: side.id, queue: 'mail', jobType: 'test.flow', status: 'succeeded', result: { made: 'side' } },
    ]);
    expect(flowLog.children.get('leafA')).toEqual([]);
    const child = await p.runs.get(leafA.id);
    expect(child?.flow).toEqual({ parent: { id: mid.id, queue: 'etl' }, onFailure: 'fail' });
    expect((await p.runs.get(top.id))?.flow?.children?.map((c) => c.status)).toEqual(['succeeded', 'succeeded']);
  }, 30_000);

  it('parks the parent without running it when a child parks (onFailure: fail, the default)', async () => {
    const top = node('top', 'reports');
    const bad = node('bad', 'etl', { fail: true });
    const good = node('good', 'etl');
    await enqueueFlow(p.runs.flows, item(top, [item(bad), item(good)]));
    await startWorkers();
    await waitFor('the top run to park', async () => (await p.runs.get(top.id))?.status === 'parked', {
      timeoutMs: 15_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(count('start:top')).toBe(0);
    expect(await p.runs.get(top.id)).toMatchObject({
      reason: 'child-failed',
      error: { message: `child run ${bad.id} (test.flow, queue etl) failed` },
    });
    // A replay would run it alone, without its children: refused, and a bulk replay leaves it parked.
    await expect(p.runs.replayParked('reports', top.id)).rejects.toMatchObject({
      code: 'flow-parent-not-replayable',
      child: bad.id,
    });
    expect(await p.runs.replayAllParked('reports')).toEqual([]);
    expect((await p.runs.get(top.id))?.status).toBe('parked');
    // The failed child itself replays as any parked run.
    expect((await p.runs.replayParked('etl', bad.id)).replayOf).toBe(bad.id);
  }, 30_000);

  it('runs the parent once a child ignored on failure parked, and hands it the failure', async () => {
    const top = node('top', 'reports');
    const bad = node('bad', 'etl', { fail: true });
    const good = node('good', 'mail');
    await enqueueFlow(p.runs.flows, item(top, [item(bad, [], 'ignore'), item(good)]));
    await startWorkers();
    await waitFor('the top run to succeed', async () => (await p.runs.get(top.id))?.status === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect(count('start:top')).toBe(1);
    expect(flowLog.children.get('top')).toEqual([
      { id: bad.id, queue: 'etl', jobType: 'test.flow', status: 'parked', error: 'bad failed' },
      { id: good.id, queue: 'mail', jobType: 'test.flow', status: 'succeeded', result: { made: 'good' } },
    ]);
    expect((await p.runs.get(bad.id))?.flow).toEqual({ parent: { id: top.id, queue: 'reports' }, onFailure: 'ignore' });
  }, 30_000);

  it('a canceled child counts as finished: the parent runs and reads it canceled', async () => {
    const top = node('top', 'reports');
    const gone = node('gone', 'etl');
    const kept = node('kept', 'etl');
    await enqueueFlow(p.runs.flows, item(top, [item(gone), item(kept)]));
    expect((await p.runs.cancel(gone.id, 'not needed')).outcome).toBe('canceled');
    await startWorkers();
    await waitFor('the top run to succeed', async () => (await p.runs.get(top.id))?.status === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect(count('start:gone')).toBe(0);
    expect(flowLog.children.get('top')).toEqual([
      { id: gone.id, queue: 'etl', jobType: 'test.flow', status: 'canceled', reason: 'not needed' },
      { id: kept.id, queue: 'etl', jobType: 'test.flow', status: 'succeeded', result: { made: 'kept' } },
    ]);
  }, 30_000);

  it('canceling a parent cancels its pending children (and theirs); none of them ever runs', async () => {
    const top = node('top', 'reports');
    const mid = node('mid', 'etl');
    const leaf = node('leaf', 'mail');
    const done = node('done', 'mail');
    await enqueueFlow(p.runs.flows, item(top, [item(mid, [item(leaf)]), item(done)]));
    // One child ends before the cancel: it stays succeeded.
    await startWorkers('mail');
    await waitFor('the mail children to end', async () => (await p.runs.get(done.id))?.status === 'succeeded', {
      timeoutMs: 15_000,
    });
    await Promise.all(workers.map((w) => w.close()));
    workers = [];
    const before = flowLog.edges.length;
    expect((await p.runs.cancel(top.id, 'wrong month')).outcome).toBe('canceled');
    expect(await p.runs.get(top.id)).toMatchObject({ status: 'canceled', reason: 'wrong month' });
    expect(await p.runs.get(mid.id)).toMatchObject({ status: 'canceled', reason: PARENT_CANCELED_REASON });
    expect((await p.runs.get(leaf.id))?.status).toBe('succeeded');
    expect((await p.runs.get(done.id))?.status).toBe('succeeded');
    await startWorkers();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(flowLog.edges.slice(before)).toEqual([]);
  }, 30_000);

  it('a running handler adds children, waits, and continues once they finished, as the same attempt', async () => {
    const fan = newRun(`a-flow-${++seq}-fan`, 'test.fanout', {
      queue: 'reports',
      payload: { name: 'fan', n: 3, queue: 'etl' },
      freshId: true,
    });
    await p.runs.enqueue(fan);
    await startWorkers();
    await waitFor('the fan-out run to succeed', async () => (await p.runs.get(fan.id))?.status === 'succeeded', {
      timeoutMs: 15_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    const at = (e: string) => flowLog.edges.indexOf(e);
    // Started twice, both as attempt 1; continued only after every child ended; each child once.
    expect(flowLog.edges.filter((e) => e.startsWith('start:fan:'))).toEqual(['start:fan:1', 'start:fan:1']);
    expect(count('end:fan')).toBe(1);
    for (const i of [0, 1, 2]) {
      expect(count(`start:fan.${i}`)).toBe(1);
      expect(at('end:fan')).toBeGreaterThan(at(`end:fan.${i}`));
    }
    const view = await p.runs.get(fan.id);
    expect(view).toMatchObject({ attempt: 1, result: { made: ['fan.0', 'fan.1', 'fan.2'] } });
    expect(view?.flow?.children?.map((c) => c.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    const child = await p.runs.get(view!.flow!.children![0]!.id);
    expect(child?.flow).toEqual({ parent: { id: fan.id, queue: 'reports' }, onFailure: 'fail' });
  }, 30_000);

  it('a gated leaf holds its parent until it is decided: approved it runs first, rejected it counts as canceled', async () => {
    const top = node('top', 'reports');
    const yes = node('yes', 'gated');
    const no = node('no', 'gated');
    await enqueueFlow(p.runs.flows, item(top, [item(yes), item(no)]));
    await startWorkers('reports,etl,mail,gated');
    expect((await p.runs.get(yes.id))?.status).toBe('awaiting-approval');
    await new Promise((r) => setTimeout(r, 500));
    expect(count('start:top')).toBe(0);
    await p.runs.approvals.approve(yes.id, { by: 'alice' });
    await p.runs.approvals.reject(no.id, { by: 'alice', reason: 'not today' });
    await waitFor('the top run to succeed', async () => (await p.runs.get(top.id))?.status === 'succeeded', {
      timeoutMs: 15_000,
    });
    expect(count('start:yes')).toBe(1);
    expect(count('start:no')).toBe(0);
    expect(flowLog.edges.indexOf('start:top')).toBeGreaterThan(flowLog.edges.indexOf('end:yes'));
    expect(flowLog.children.get('top')).toEqual([
      { id: yes.id, queue: 'gated', jobType: 'test.flow', status: 'succeeded', result: { made: 'yes' } },
      { id: no.id, queue: 'gated', jobType: 'test.flow', status: 'canceled', reason: 'not today' },
    ]);
  }, 30_000);

  it('refuses a flow it cannot honour, writing none of it', async () => {
    const top = node('top', 'reports');
    const child = node('child', 'keyed');
    await expect(enqueueFlow(p.runs.flows, item(top, [item(child)]))).rejects.toMatchObject({
      code: 'invalid-options',
      issues: ["children.0: queue keyed limits runs per concurrency key; a flow's runs take none"],
    });
    const late = { ...node('late', 'reports'), delayMs: 60_000 };
    await expect(enqueueFlow(p.runs.flows, item(late, [item(node('c', 'etl'))]))).rejects.toMatchObject({
      issues: ['the top run: a parent starts when its children finish; delay its children instead'],
    });
    await expect(
      enqueueFlow(p.runs.flows, item(node('x', 'reports'), [item(node('y', 'nowhere'))])),
    ).rejects.toMatchObject({ code: 'unknown-queue' });
    const keyedRun = { item: { run: node('k', 'reports'), key: 'once' } };
    await expect(enqueueFlow(p.runs.flows, keyedRun)).rejects.toMatchObject({
      issues: ['the top run: idempotencyKey: runs of a flow take none'],
    });
    for (const id of [top.id, child.id, late.id]) expect(await p.runs.get(id)).toBeNull();
  });
});
