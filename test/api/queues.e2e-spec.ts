import { randomUUID } from 'node:crypto';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import type { NewRun } from '@drover/store';
import { ApiCluster, expectProblem } from './support/api-cluster';
import { anIso, msOf } from './support/iso';

interface OperationEvent {
  kind: string;
  action: string;
  id: string;
  data: { done: number; matched: number; failed: number };
}

/**
 * Queues, parked runs and bulk operations against a real api, scheduler and worker. Runs park by
 * calling an oracle that answers 500 while `failing` is set (those calls are not counted);
 * once it is cleared, every call is a delivery the oracle counts.
 */
describe('queues api (real api + scheduler + worker)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  let failing = true;
  const events: OperationEvent[] = [];

  const run = (id: string, queue: string, path: string, routine: string | null = null): NewRun => ({
    id,
    routine,
    jobType: 'http.request',
    queue,
    source: 'api',
    scheduledFor: null,
    payload: { url: `${oracle.url}${path}` },
  });
  const parkedCount = () => api.cluster.runs.parkedCount('flaky');
  const delivered = (runId: string) => oracle.hits.some((h) => h.runId === runId);

  /** Polls an operation until `done` holds, keeping every state it saw. */
  async function follow(location: string, until: (op: { status: string }) => boolean, timeoutMs = 15_000) {
    const seen: { status: string; done: number; matched: number; skipped: number; failed: number }[] = [];
    await waitFor(
      `operation ${location} to end`,
      async () => {
        const res = await api.call('GET', location.replace('/api/v1', ''), { as: 'viewer' });
        expect(res.status).toBe(200);
        seen.push(res.body);
        return until(res.body);
      },
      { timeoutMs, intervalMs: 100 },
    );
    return seen;
  }

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) => (failing && path.startsWith('/fail') ? { status: 500, json: { error: 'down' } } : undefined),
    });
    api = await ApiCluster.start('api-queues', {
      policy: {
        queues: [
          { name: 'default', concurrency: 5 },
          { name: 'flaky', concurrency: 20, maxAttempts: 1 },
        ],
      },
    });
    const sub = api.cluster.connections.open('command', 'events');
    sub.on('message', (_c: string, raw: string) => {
      const e = JSON.parse(raw) as OperationEvent;
      if (e.kind === 'operation') events.push(e);
    });
    await sub.subscribe(api.cluster.keys.apiEvents());
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  it('lists queues with their policy, origin, paused flag, counts per state and consuming worker', async () => {
    const list = await api.call('GET', '/queues', { as: 'viewer' });
    expect(list.status).toBe(200);
    expect(list.body.items.map((q: { name: string }) => q.name)).toEqual(['default', 'flaky']);
    const flaky = await api.call('GET', '/queues/flaky', { as: 'viewer' });
    expect(flaky.body).toEqual({
      name: 'flaky',
      origin: 'file',
      updatedAt: anIso(),
      policy: expect.objectContaining({ name: 'flaky', concurrency: 20, maxAttempts: 1, leaseMs: 30_000 }),
      paused: false,
      counts: { waiting: 0, active: 0, delayed: 0, prioritized: 0, parked: 0 },
      workers: [{ instanceId: 'api-queues-worker', concurrency: 20, draining: false, heartbeatAt: anIso() }],
    });
    expect(expectProblem(await api.call('GET', '/queues/nope', { as: 'viewer' }), 404).detail).toBe(
      'queue "nope" is not defined; defined queues: default, flaky',
    );
    expect(expectProblem(await api.call('GET', '/queues/Not%20A%20Name'), 400).errors).toEqual([
      { path: 'params.name', message: expect.stringContaining('is not a valid name') },
    ]);
  });

  it('pause stops handing out runs to every worker until resume; a viewer may not pause', async () => {
    expectProblem(await api.call('POST', '/queues/default/pause', { as: 'viewer' }), 403);
    const paused = await api.call('POST', '/queues/default/pause', { as: 'operator' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ name: 'default', paused: true });
    await api.cluster.runs.enqueue(run('held-1', 'default', '/ok/held'));
    // Proving a negative needs a wait: a free worker takes a run within milliseconds.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(delivered('held-1')).toBe(false);
    expect((await api.call('GET', '/queues/default')).body).toMatchObject({ paused: true, counts: { waiting: 1 } });
    const resumed = await api.call('POST', '/queues/default/resume', { as: 'operator' });
    expect(resumed.body).toMatchObject({ paused: false });
    await oracle.waitFor('the held run', () => delivered('held-1'), 10_000);
    expectProblem(await api.call('POST', '/queues/nope/pause', { as: 'operator' }), 404);
  });

  it('lists parked runs with their errors, newest first, page by page and filtered', async () => {
    const alpha = Array.from({ length: 30 }, (_, i) => run(`alpha-${i}`, 'flaky', '/fail/alpha'));
    const beta = Array.from({ length: 4 }, (_, i) => run(`beta-${i}`, 'flaky', '/fail/beta', 'nightly'));
    await api.cluster.runs.enqueueMany([...alpha, ...beta]);
    await waitFor('34 parked runs', async () => (await parkedCount()) === 34, { timeoutMs: 15_000 });

    const first = await api.call('GET', '/queues/flaky/parked?page_size=20', { as: 'viewer' });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(20);
    expect(first.body.items[0]).toMatchObject({
      queue: 'flaky',
      status: 'parked',
      reason: 'attempts-exhausted',
      scheduledFor: null,
      error: { message: expect.stringContaining('answered 500') },
      errors: [{ attempt: 1, kind: 'error', message: expect.stringContaining('answered 500'), failedAt: anIso() }],
      createdAt: anIso(),
      updatedAt: anIso(),
      finishedAt: anIso(),
    });
    const second = await api.call('GET', `/queues/flaky/parked?page_size=20&page_token=${first.body.next_page_token}`);
    expect(second.body.items).toHaveLength(14);
    expect(second.body.next_page_token).toBeUndefined();
    const ids = [...first.body.items, ...second.body.items].map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(34);
    // An instant the API answered is one it takes back: runs parked (finished) before the newest one.
    const all: { id: string; finishedAt: string }[] = [...first.body.items, ...second.body.items];
    const newest = msOf(all[0]!.finishedAt);
    const before = await api.call(
      'GET',
      `/queues/flaky/parked?page_size=1000&before=${encodeURIComponent(all[0]!.finishedAt)}`,
    );
    expect(before.body.items.map((r: { id: string }) => r.id).sort()).toEqual(
      all
        .filter((r) => msOf(r.finishedAt) < newest)
        .map((r) => r.id)
        .sort(),
    );

    const nightly = await api.call('GET', '/queues/flaky/parked?routine=nightly');
    expect(nightly.body.items.map((r: { id: string }) => r.id).sort()).toEqual([
      'beta-0',
      'beta-1',
      'beta-2',
      'beta-3',
    ]);
    expect((await api.call('GET', '/queues/flaky/parked?error=%2FFAIL%2Falpha')).body.items).toHaveLength(30);
    expect((await api.call('GET', '/queues/flaky/parked?jobType=noop')).body.items).toEqual([]);
    expect((await api.call('GET', '/queues/flaky/parked?after=2000-01-01T00:00:00Z')).body.items).toHaveLength(34);
    expect((await api.call('GET', '/queues/flaky/parked?before=2000-01-01T00:00:00Z')).body.items).toEqual([]);

    expect(expectProblem(await api.call('GET', '/queues/flaky/parked?page_token=bogus'), 400).errors).toEqual([
      { path: 'query.page_token', message: 'is not a page token from next_page_token' },
    ]);
    expectProblem(await api.call('GET', '/queues/nope/parked'), 404);
  });

  it('replays one parked run as a new run that really runs: 201, idempotent; 404 unknown, 409 not parked', async () => {
    failing = false;
    expectProblem(await api.call('POST', '/queues/flaky/parked/beta-0/replay', { as: 'viewer' }), 403);
    const res = await api.call('POST', '/queues/flaky/parked/beta-0/replay', { as: 'operator' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ runId: expect.any(String), replayOf: 'beta-0' });
    expect(res.body.runId).not.toBe('beta-0');
    await oracle.waitFor('the replayed run', () => delivered(res.body.runId), 10_000);
    const again = await api.call('POST', '/queues/flaky/parked/beta-0/replay', { as: 'operator' });
    expect(again.body).toEqual(res.body);
    expect(oracle.hits.filter((h) => h.runId === res.body.runId)).toHaveLength(1);

    expectProblem(await api.call('POST', '/queues/flaky/parked/no-such-run/replay', { as: 'operator' }), 404);
    const notParked = expectProblem(await api.call('POST', '/queues/default/parked/held-1/replay'), 409);
    expect(notParked.detail).toBe('run "held-1" is not parked in queue "default" (it is succeeded)');
    expectProblem(await api.call('POST', '/queues/nope/parked/beta-1/replay'), 404);
  });

  it('counts what a bulk operation would touch on a dry run, and changes nothing; refuses bad bodies', async () => {
    const all = await api.call('POST', '/queues/flaky/parked/replay', { as: 'operator', body: { dryRun: true } });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ dryRun: true, matched: 33 });
    const nightly = await api.call('POST', '/queues/flaky/parked/replay', {
      as: 'operator',
      body: { dryRun: true, filter: { routine: 'nightly' } },
    });
    expect(nightly.body.matched).toBe(3);
    const purge = await api.call('POST', '/queues/flaky/parked/purge', {
      as: 'admin',
      body: { dryRun: true, filter: { error: 'beta', after: '2000-01-01T00:00:00Z' } },
    });
    expect(purge.body).toEqual({ dryRun: true, matched: 3 });
    expect(await parkedCount()).toBe(33);

    const bad = expectProblem(
      await api.call('POST', '/queues/flaky/parked/replay', {
        as: 'operator',
        body: { filter: { colour: 'red', before: 'soon' }, ratePerSecond: 5000 },
      }),
      400,
    );
    expect(bad.errors?.map((e) => e.path).sort()).toEqual([
      'body.filter.before',
      'body.filter.colour',
      'body.ratePerSecond',
    ]);
    expect(await parkedCount()).toBe(33);
  });

  it('keeps purges to admins: operator gets 403 and nothing is removed', async () => {
    expectProblem(await api.call('POST', '/queues/flaky/parked/purge', { as: 'operator', body: {} }), 403);
    expectProblem(await api.call('DELETE', '/queues/flaky/parked/beta-1', { as: 'operator' }), 403);
    expect(await parkedCount()).toBe(33);
  });

  it('replays in bulk as a rate-limited background operation with progress, and the runs really run', async () => {
    const started = Date.now();
    const res = await api.call('POST', '/queues/flaky/parked/replay', {
      as: 'operator',
      body: { filter: { error: 'alpha', after: '2000-01-01T01:00:00+01:00' }, ratePerSecond: 10 },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ operationId: expect.any(String), matched: 30 });
    expect(res.headers.get('location')).toBe(`/api/v1/operations/${res.body.operationId}`);

    const seen = await follow(res.headers.get('location')!, (op) => op.status !== 'running');
    const elapsed = Date.now() - started;
    // 30 replays at 10/s (a burst of one) take 2.9 s; unlimited they take a few ms.
    expect(elapsed).toBeGreaterThanOrEqual(2_000);
    expect(seen.some((op) => op.status === 'running' && op.done > 0 && op.done < 30)).toBe(true);
    expect(seen[seen.length - 1]).toMatchObject({
      id: res.body.operationId,
      kind: 'replay',
      queue: 'flaky',
      status: 'done',
      // The filter's instant in UTC, as every instant of an answer.
      filter: { error: 'alpha', after: '2000-01-01T00:00:00.000Z' },
      ratePerSecond: 10,
      matched: 30,
      done: 30,
      skipped: 0,
      failed: 0,
      by: 'operator-token',
      instance: 'api-queues-api',
      startedAt: anIso(),
      heartbeatAt: anIso(),
      finishedAt: anIso(),
    });

    await oracle.waitFor(
      '30 replayed alpha runs',
      (hits) => hits.filter((h) => h.path === '/fail/alpha').length === 30,
      15_000,
    );
    expect(await parkedCount()).toBe(3);
    const mine = events.filter((e) => e.id === res.body.operationId);
    expect(mine.some((e) => e.action === 'progress' && e.data.done > 0 && e.data.done < 30)).toBe(true);
    expect(mine[mine.length - 1]).toMatchObject({
      action: 'done',
      at: anIso(),
      data: { done: 30, matched: 30, failed: 0 },
    });
  }, 30_000);

  it('purges one parked run (204, then 404) and the rest in bulk, skipping runs gone meanwhile', async () => {
    const one = await api.call('DELETE', '/queues/flaky/parked/beta-1', { as: 'admin' });
    expect(one.status).toBe(204);
    expectProblem(await api.call('DELETE', '/queues/flaky/parked/beta-1', { as: 'admin' }), 404);
    expectProblem(await api.call('DELETE', '/queues/default/parked/held-1', { as: 'admin' }), 409);
    expect(await parkedCount()).toBe(2);

    // Newest first at 1/s: beta-2 or beta-3 goes at once, the other one second later, unless we take it first.
    const res = await api.call('POST', '/queues/flaky/parked/purge', { as: 'admin', body: { ratePerSecond: 1 } });
    expect(res.status).toBe(202);
    expect(res.body.matched).toBe(2);
    const left = await waitFor('the first purge', async () => {
      const runs = await api.cluster.runs.listParked('flaky');
      return runs.length === 1 && runs;
    });
    expect((await api.call('DELETE', `/queues/flaky/parked/${left[0]!.id}`, { as: 'admin' })).status).toBe(204);
    const seen = await follow(res.headers.get('location')!, (op) => op.status !== 'running');
    expect(seen[seen.length - 1]).toMatchObject({ status: 'done', matched: 2, done: 2, skipped: 1, failed: 0 });
    expect(await parkedCount()).toBe(0);
  }, 30_000);

  it('answers 404 for an unknown operation, 400 for a malformed id, and shows a dead one as abandoned', async () => {
    expectProblem(await api.call('GET', `/operations/${randomUUID()}`, { as: 'viewer' }), 404);
    expect(expectProblem(await api.call('GET', '/operations/xyz'), 400).errors).toEqual([
      { path: 'params.id', message: 'is not an operation id' },
    ]);
    // What a replica that died mid-operation leaves behind: `running`, and a heartbeat long past.
    const id = randomUUID();
    const startedAt = Date.now() - 60_000;
    const fields = { id, kind: 'replay', queue: 'flaky', status: 'running', filter: '{}', ratePerSecond: '100' };
    await api.cluster.connections.command.hset(api.cluster.keys.operation(id), {
      ...fields,
      matched: '10',
      done: '4',
      skipped: '0',
      failed: '0',
      by: 'operator-token',
      instance: 'gone',
      startedAt: String(startedAt),
      heartbeatAt: String(Date.now() - 30_000),
    });
    expect((await api.call('GET', `/operations/${id}`)).body).toMatchObject({
      status: 'abandoned',
      done: 4,
      startedAt: new Date(startedAt).toISOString(),
    });
  });

  it('audits mutating calls with token, action, target and status; refused ones in the refused log', async () => {
    const entriesOf = async (log: string) =>
      (await api.call('GET', `/audit?log=${log}&page_size=1000`, { as: 'admin' })).body.items as {
        token: string;
        action: string;
        target: string;
        status: number;
      }[];
    const principals = await entriesOf('principals');
    const refused = await entriesOf('refused');
    const entry = (token: string, action: string, target: string, status: number) =>
      expect.objectContaining({ token, action, target, status });
    expect(principals).toContainEqual(entry('operator-token', 'pauseQueue', 'name=default', 200));
    expect(principals).toContainEqual(entry('operator-token', 'replayParked', 'name=flaky id=beta-0', 201));
    expect(principals).toContainEqual(entry('operator-token', 'replayParkedRuns', 'name=flaky', 202));
    expect(principals).toContainEqual(entry('admin-token', 'deleteParked', 'name=flaky id=beta-1', 204));
    // A role below the route's is refused at the door: never in the principals' log.
    for (const denied of [
      entry('viewer-token', 'pauseQueue', 'name=default', 403),
      entry('operator-token', 'purgeParkedRuns', 'name=flaky', 403),
    ]) {
      expect(refused).toContainEqual(denied);
      expect(principals).not.toContainEqual(denied);
    }
  });
});
