import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { ApiCluster, expectProblem } from './support/api-cluster';
import { anIso } from './support/iso';
import { expectStream, SseConnection, SseParser } from './support/sse';

describe('SSE parser (test support)', () => {
  it('joins multi-line data, keeps the last id, skips comments and handles split chunks and CRLF', () => {
    const p = new SseParser();
    expect(p.feed('retry: 3000\r\n: keep-alive\r\n\r\nid: 1\nevent: st')).toEqual([]);
    expect(p.feed('atus\ndata: a\ndata: b\n\ndata: c\r')).toEqual([{ event: 'status', data: 'a\nb', id: '1' }]);
    expect(p.feed('\n\r\n')).toEqual([{ event: 'message', data: 'c', id: '1' }]);
    expect(p.retry).toBe(3000);
    expect(p.comments).toBe(1);
  }, 30_000);
});

/** The run event stream and the cluster-wide event stream, against real api, scheduler and worker processes. */
describe('api event streams (real api + scheduler + worker)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  const open: SseConnection[] = [];

  beforeAll(async () => {
    oracle = await startHttpOracle();
    api = await ApiCluster.start('api-events', {
      policy: {
        queues: [
          { name: 'default', concurrency: 5, maxAttempts: 1 },
          { name: 'other', concurrency: 1 },
        ],
        routines: [{ name: 'on-demand', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } }],
      },
    });
  }, 60_000);

  afterAll(async () => {
    open.forEach((s) => s.close());
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const stream = async (path: string, as: 'viewer' | 'admin' = 'viewer') => {
    const s = expectStream(await SseConnection.open(api, path, as));
    open.push(s);
    return s;
  };
  const enqueue = async (body: unknown): Promise<string> => {
    const res = await api.call('POST', '/jobs', { as: 'operator', body });
    expect(res.status).toBe(201);
    return res.body.runId as string;
  };

  it('streams a run from before it starts to its final status, then the server ends the stream', async () => {
    const runId = await enqueue({
      jobType: 'http.request',
      payload: { url: `${oracle.url}/watched?delayMs=300`, method: 'GET' },
      delayMs: 800,
    });
    const s = await stream(`/runs/${runId}/events`);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Under the keep-alive tick (15 s): the stream follows BullMQ's events, not the tick's re-read.
    await s.waitForEnd(8_000);
    expect(s.parser.retry).toBe(3000);
    const statuses = s.json('status');
    // A read between the delay's end and the worker's start may also show it `queued`.
    expect(statuses.map((r) => r.status).filter((st) => st !== 'queued')).toEqual([
      'scheduled',
      'running',
      'succeeded',
    ]);
    expect(statuses.at(-1)).toMatchObject({
      id: runId,
      attempt: 1,
      result: { status: 200 },
      createdAt: anIso(),
      startedAt: anIso(),
      finishedAt: anIso(),
    });
    expect(s.events.slice(-2).map((e) => e.event)).toEqual(['status', 'end']);
    expect(s.json('attempt')).toEqual([{ id: runId, attempt: 1, maxAttempts: 1, status: 'running' }]);
    expect(s.json('end')).toEqual([{ id: runId, status: 'succeeded' }]);
    expect(s.events.map((e) => Number(e.id))).toEqual(s.events.map((_, i) => i + 1));
  }, 30_000);

  it('gives a late subscriber the final status of a finished run and ends the stream at once', async () => {
    const runId = await enqueue({ jobType: 'noop', payload: {} });
    await waitFor('the noop run to succeed', async () => (await api.cluster.runs.get(runId))?.status === 'succeeded');
    const s = await stream(`/runs/${runId}/events`);
    await s.waitForEnd(5_000);
    expect(s.events.map((e) => e.event)).toEqual(['status', 'end']);
    expect(s.json('status')[0]).toMatchObject({ id: runId, status: 'succeeded' });
  }, 30_000);

  it('ends the stream of a run canceled while someone watches it', async () => {
    const runId = await enqueue({ jobType: 'noop', payload: {}, delayMs: 60_000 });
    const s = await stream(`/runs/${runId}/events`);
    await s.waitFor('the scheduled status', (e) => e.event === 'status');
    expect((await api.call('POST', `/runs/${runId}/cancel`, { as: 'operator' })).status).toBe(200);
    await s.waitForEnd(10_000);
    expect(s.json('status').map((r) => r.status)).toEqual(['scheduled', 'canceled']);
  }, 30_000);

  it('answers an unknown run with a 404 problem, not a stream; no token is a 401', async () => {
    const res = await api.call('GET', '/runs/a-nothing-here/events', { as: 'viewer' });
    expectProblem(res, 404);
    expectProblem(await api.call('GET', '/runs/a-nothing-here/events', { as: 'none' }), 401);
    const bad = expectProblem(await api.call('GET', '/events?kinds=run,jobs', { as: 'viewer' }), 400);
    expect(bad.errors).toEqual([{ path: 'query.kinds', message: expect.stringContaining('unknown kind "jobs"') }]);
  }, 30_000);

  it('delivers run status changes and routine changes on /events, filtered by kind and queue', async () => {
    const all = await stream('/events');
    const runsOfDefault = await stream('/events?kinds=run&queue=default');
    const runId = await enqueue({ jobType: 'noop', payload: {} });
    const otherId = await enqueue({ jobType: 'noop', payload: {}, queue: 'other' });
    const succeeded = (id: string) => (e: { event: string; data: string }) =>
      e.event === 'run' && JSON.parse(e.data).id === id && JSON.parse(e.data).data?.status === 'succeeded';
    await all.waitFor('the run to succeed', succeeded(runId));
    await all.waitFor('the other run to succeed', succeeded(otherId));
    const statuses = all
      .json('run')
      .filter((e) => e.id === runId && e.action === 'status')
      .map((e) => e.data.status);
    expect(statuses).toEqual(['queued', 'running', 'succeeded']);
    expect(all.json('run').find((e) => e.id === runId)).toMatchObject({
      kind: 'run',
      action: 'status',
      at: anIso(),
      data: { queue: 'default', status: 'queued' },
    });
    const now = Date.now();
    await api.cluster.routines.pause('on-demand', { at: now, note: 'e2e' }, now);
    const changed = await all.waitFor('the routine change', (e) => e.event === 'routine');
    expect(JSON.parse(changed.data)).toMatchObject({
      kind: 'routine',
      action: 'changed',
      id: 'on-demand',
      at: anIso(),
      data: { status: 'paused' },
    });
    const ids = all.events.map((e) => Number(e.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    // What another replica publishes on the api's bus (a bulk operation's progress) reaches this stream too.
    const op = {
      kind: 'operation',
      action: 'progress',
      id: 'op-1',
      at: new Date(now).toISOString(),
      data: { queue: 'other', done: 3, total: 10 },
    };
    await api.cluster.connections.command.publish(api.cluster.keys.apiEvents(), JSON.stringify(op));
    const opEvent = await all.waitFor('the operation event', (e) => e.event === 'operation');
    expect(JSON.parse(opEvent.data)).toEqual(op);
    await runsOfDefault.waitFor('the run to succeed', succeeded(runId));
    expect(runsOfDefault.events.every((e) => e.event === 'run' && JSON.parse(e.data).data.queue === 'default')).toBe(
      true,
    );
  }, 30_000);

  it("tells /events that anything may have changed once the api's change feed is back from a cut", async () => {
    const all = await stream('/events?kinds=routine,queue');
    const redis = api.cluster.connections.command;
    const line = String(await redis.client('LIST'))
      .split('\n')
      .find((l) => l.includes('name=drover:api-events-api:api-changes '));
    const id = /\bid=(\d+)/.exec(line ?? '')?.[1];
    expect(id).toBeDefined();
    // Cut off, then a routine changed before the feed reconnects: that announcement reaches nobody.
    await redis.client('KILL', 'ID', id!);
    const now = Date.now();
    await api.cluster.routines.resume('on-demand', now);
    const any = (kind: string) => (e: { event: string; data: string }) =>
      e.event === kind && JSON.parse(e.data).action === 'changed' && JSON.parse(e.data).id === '*';
    await all.waitFor('a routine change of everything', any('routine'));
    await all.waitFor('a queue change of everything', any('queue'));
  }, 30_000);
});
