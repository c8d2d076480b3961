import { z } from 'zod';
import { triggerRoutine } from '@drover/store';
import { RunSchema } from '../../libs/api/src/runs/run-schema';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { ApiCluster, expectProblem, type ApiAnswer } from './support/api-cluster';
import { anIso } from './support/iso';

/** Ad-hoc jobs and runs over HTTP, against real api, scheduler and worker processes. */
describe('api runs (real api + scheduler + worker)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    api = await ApiCluster.start('api-runs', {
      policy: {
        queues: [
          { name: 'default', concurrency: 10, maxAttempts: 1 },
          { name: 'mail', concurrency: 1 },
        ],
        routines: [{ name: 'on-demand', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } }],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const http = (path: string, extra: Record<string, unknown> = {}) => ({
    jobType: 'http.request',
    payload: { url: `${oracle.url}${path}`, method: 'POST', ...extra },
  });
  const runIdsIn = async () => new Set((await api.cluster.runs.listRecent({ limit: 1000 })).map((r) => r.id));
  const runOf = async (id: string, status: string) =>
    waitFor(`run ${id} ${status}`, async () => {
      const r = await api.call('GET', `/runs/${id}`, { as: 'viewer' });
      return r.body?.status === status ? r : undefined;
    });

  it('enqueues an ad-hoc run for an operator: 201, Location, delivered once, readable by a viewer', async () => {
    const res = await api.call('POST', '/jobs', { as: 'operator', body: http('/adhoc', { body: { n: 1 } }) });
    expect(res.status).toBe(201);
    const runId = res.body.runId as string;
    expect(res.headers.get('location')).toBe(`/api/v1/runs/${runId}`);
    await oracle.waitFor('the ad-hoc delivery', (hits) => hits.some((h) => h.runId === runId), 15_000);
    const done = await runOf(runId, 'succeeded');
    expect(done.body).toMatchObject({
      id: runId,
      routine: null,
      jobType: 'http.request',
      queue: 'default',
      source: 'api',
      scheduledFor: null,
      attempt: 1,
      createdBy: 'operator-token',
      payload: { url: `${oracle.url}/adhoc`, method: 'POST', body: { n: 1 } },
      result: { status: 200, body: 'ok' },
      createdAt: anIso(),
      finishedAt: anIso(),
    });
    expect(oracle.hits.filter((h) => h.runId === runId)).toHaveLength(1);
    // Exactly what the OpenAPI document promises (its objects allow no other property).
    expect(z.strictObject(RunSchema.shape).safeParse(done.body).error).toBeUndefined();
  }, 30_000);

  it('refuses a viewer (403) and no token (401) on POST /jobs, writing nothing', async () => {
    const before = await runIdsIn();
    const viewer = expectProblem(await api.call('POST', '/jobs', { as: 'viewer', body: http('/no') }), 403);
    expect(viewer.detail).toContain('needs role operator');
    expectProblem(await api.call('POST', '/jobs', { as: 'none', body: http('/no') }), 401);
    expect(await runIdsIn()).toEqual(before);
  }, 30_000);

  it('names every bad field of an enqueue in one 400, writing nothing', async () => {
    const before = await runIdsIn();
    const bad = expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: '', priority: 'urgent', runAt: 'tomorrow', maxAttempts: 0, queue: 'Bad Queue', colour: 1 },
      }),
      400,
    );
    expect(bad.errors!.map((e) => e.path).sort()).toEqual(
      [
        'body.colour',
        'body.jobType',
        'body.maxAttempts',
        'body.payload',
        'body.priority',
        'body.queue',
        'body.runAt',
      ].sort(),
    );
    const both = expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: 'noop', payload: {}, runAt: '2030-01-01T00:00:00Z', delayMs: 5 },
      }),
      400,
    );
    expect(both.errors).toEqual([{ path: 'body.delayMs', message: 'give runAt or delayMs, not both' }]);
    const far = expectProblem(
      await api.call('POST', '/jobs', { as: 'operator', body: { jobType: 'noop', payload: {}, delayMs: 2 ** 53 - 1 } }),
      400,
    );
    expect(far.errors).toEqual([{ path: 'body.delayMs', message: expect.stringContaining('<=315576000000') }]);
    const past = expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: 'noop', payload: {}, runAt: '1969-12-31T23:59:59Z' },
      }),
      400,
    );
    expect(past.errors).toEqual([{ path: 'body.runAt', message: 'must not be before 1970-01-01T00:00:00Z' }]);
    const queue = expectProblem(
      await api.call('POST', '/jobs', { as: 'operator', body: { jobType: 'noop', payload: {}, queue: 'nope' } }),
      400,
    );
    expect(queue.errors).toEqual([{ path: 'body.queue', message: expect.stringContaining('"nope" is not defined') }]);
    expectProblem(
      await api.call('POST', '/jobs', { as: 'operator', raw: '{"jobType":', contentType: 'application/json' }),
      400,
    );
    expect(await runIdsIn()).toEqual(before);
  }, 30_000);

  it('checks payloads as the client does: the size cap (400 on body.payload) and 413 over 1 MiB', async () => {
    const before = await runIdsIn();
    const big = expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: 'noop', payload: { blob: 'x'.repeat(300_000) } },
      }),
      400,
    );
    expect(big.errors).toEqual([
      { path: 'body.payload', message: expect.stringContaining('the limit is 262144 bytes') },
    ]);
    expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: 'noop', payload: { blob: 'x'.repeat(1_100_000) } },
      }),
      413,
    );
    const reserved = expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: 'noop', payload: { a: { constructor: 1 } } },
      }),
      400,
    );
    expect(reserved.errors).toEqual([
      { path: 'body.payload.a.constructor', message: expect.stringContaining('not allowed') },
    ]);
    expect(await runIdsIn()).toEqual(before);
  }, 30_000);

  it('validates an http.request payload at enqueue, refusing X-Drover-* headers by name', async () => {
    const before = await runIdsIn();
    const bad = expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: {
          jobType: 'http.request',
          payload: {
            url: 'ftp://example/x',
            method: 'FETCH',
            headers: { 'X-Drover-Run-Id': 'forged', 'x-drover-attempt': '9' },
          },
        },
      }),
      400,
    );
    expect(bad.errors!.map((e) => e.path).sort()).toEqual(
      [
        'body.payload.headers.X-Drover-Run-Id',
        'body.payload.headers.x-drover-attempt',
        'body.payload.method',
        'body.payload.url',
      ].sort(),
    );
    const headersOnly = expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: http('/h', { headers: { 'X-Drover-Routine': 'x', 'X-Team': 'ok' } }),
      }),
      400,
    );
    expect(headersOnly.errors).toEqual([
      { path: 'body.payload.headers.X-Drover-Routine', message: expect.stringContaining('set by the worker') },
    ]);
    const sleep = expectProblem(
      await api.call('POST', '/jobs', { as: 'operator', body: { jobType: 'sleep', payload: { ms: -1 } } }),
      400,
    );
    expect(sleep.errors).toEqual([{ path: 'body.payload.ms', message: expect.any(String) }]);
    expect(await runIdsIn()).toEqual(before);
  }, 30_000);

  it('makes one run for one Idempotency-Key under 10 concurrent calls, and 409 for the key on another job type', async () => {
    const key = `invoice-${Date.now()}:send`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.call('POST', '/jobs', { as: 'operator', body: http('/idem'), headers: { 'Idempotency-Key': key } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    const ids = new Set(answers.map((a: ApiAnswer) => a.body.runId as string));
    expect(ids.size).toBe(1);
    const [runId] = [...ids];
    await runOf(runId!, 'succeeded');
    const again = await api.call('POST', '/jobs', {
      as: 'operator',
      body: http('/idem'),
      headers: { 'Idempotency-Key': key },
    });
    expect(again.body.runId).toBe(runId);
    const conflict = expectProblem(
      await api.call('POST', '/jobs', {
        as: 'operator',
        body: { jobType: 'noop', payload: {} },
        headers: { 'Idempotency-Key': key },
      }),
      409,
    );
    expect(conflict.detail).toContain(`bound to run ${runId}`);
    const empty = expectProblem(
      await api.call('POST', '/jobs', { as: 'operator', body: http('/idem'), headers: { 'Idempotency-Key': '' } }),
      400,
    );
    expect(empty.errors).toEqual([
      { path: 'headers.idempotency-key', message: 'must be 1-1024 printable ASCII characters' },
    ]);
    expect(oracle.hits.filter((h) => h.path === '/idem')).toHaveLength(1);
  }, 30_000);

  it('cancels a delayed run (200, canceled) and it is never delivered; a second cancel is a 409', async () => {
    const delayed = await api.call('POST', '/jobs', { as: 'operator', body: { ...http('/canceled'), delayMs: 1500 } });
    const runId = delayed.body.runId as string;
    expect((await api.call('GET', `/runs/${runId}`, { as: 'viewer' })).body.status).toBe('scheduled');
    expectProblem(await api.call('POST', `/runs/${runId}/cancel`, { as: 'viewer' }), 403);
    const res = await api.call('POST', `/runs/${runId}/cancel`, { as: 'operator' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      outcome: 'canceled',
      run: { id: runId, status: 'canceled', reason: 'canceled by operator-token' },
    });
    // A run due just after the canceled one would have been: once it arrived, the canceled one was due too.
    const marker = await api.call('POST', '/jobs', {
      as: 'operator',
      body: { ...http('/after-canceled'), delayMs: 1700 },
    });
    await oracle.waitFor(
      'the run due after the canceled one',
      (hits) => hits.some((h) => h.runId === marker.body.runId),
      15_000,
    );
    expect(oracle.hits.filter((h) => h.path === '/canceled')).toEqual([]);
    expect((await api.call('GET', `/runs/${runId}`, { as: 'viewer' })).body.status).toBe('canceled');
    const twice = expectProblem(await api.call('POST', `/runs/${runId}/cancel`, { as: 'operator' }), 409);
    expect(twice.detail).toBe(`run ${runId} is canceled; only scheduled, queued or running runs can be canceled`);
    expectProblem(await api.call('POST', '/runs/a-no-such-run/cancel', { as: 'operator' }), 404);
    const reason = expectProblem(
      await api.call('POST', `/runs/${runId}/cancel`, { as: 'operator', body: { reason: 7 } }),
      400,
    );
    expect(reason.errors).toEqual([{ path: 'body.reason', message: expect.any(String) }]);
  }, 30_000);

  it('asks a running run to stop (202, cancel-requested) and it ends canceled', async () => {
    const res = await api.call('POST', '/jobs', { as: 'operator', body: http('/slow?delayMs=20000') });
    const runId = res.body.runId as string;
    await oracle.waitFor('the slow run to start', (hits) => hits.some((h) => h.runId === runId), 15_000);
    const cancel = await api.call('POST', `/runs/${runId}/cancel`, {
      as: 'operator',
      body: { reason: 'operator changed their mind' },
    });
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ outcome: 'cancel-requested', run: { id: runId, status: 'running' } });
    const done = await runOf(runId, 'canceled');
    expect(done.body.reason).toBe('operator changed their mind');
  }, 30_000);

  it('gets one run (404 for an unknown id) and lists runs with filters and a cursor', async () => {
    expectProblem(await api.call('GET', '/runs/a-never-was', { as: 'viewer' }), 404);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        (await api.call('POST', '/jobs', { as: 'operator', body: { jobType: 'noop', payload: { i }, queue: 'mail' } }))
          .body.runId,
      );
    }
    const seen: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await api.call(
        'GET',
        `/runs?queue=mail&jobType=noop&page_size=2${token ? `&page_token=${token}` : ''}`,
        { as: 'viewer' },
      );
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      for (const r of res.body.items) expect(r).toMatchObject({ queue: 'mail', jobType: 'noop' });
      seen.push(...res.body.items.map((r: { id: string }) => r.id));
      token = res.body.next_page_token;
      if (!token) break;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...made].reverse());
    const routineRun = await triggerRoutine({ routines: api.cluster.routines, runs: api.cluster.runs }, 'on-demand', {
      now: Date.now(),
      random: Math.random,
      by: 'e2e',
    });
    const byRoutine = await api.call('GET', '/runs?routine=on-demand', { as: 'viewer' });
    expect(byRoutine.body.items.map((r: { id: string }) => r.id)).toContain(routineRun.id);
    expect(byRoutine.body.items.every((r: { routine: string }) => r.routine === 'on-demand')).toBe(true);
    const bad = expectProblem(
      await api.call('GET', '/runs?status=lost&page_size=0&page_token=zzz', { as: 'viewer' }),
      400,
    );
    expect(bad.errors!.map((e) => e.path)).toEqual(['query.status', 'query.page_size']);
    const token400 = expectProblem(await api.call('GET', '/runs?page_token=zzz', { as: 'viewer' }), 400);
    expect(token400.errors).toEqual([
      { path: 'query.page_token', message: 'is not a page token from next_page_token' },
    ]);
    const queue400 = expectProblem(await api.call('GET', '/runs?queue=nope', { as: 'viewer' }), 400);
    expect(queue400.errors).toEqual([
      { path: 'query.queue', message: expect.stringContaining('"nope" is not defined') },
    ]);
  }, 30_000);

  it('reads a run of the previous format as it reads a lean one (producer name, attempts)', async () => {
    // Before: the producer's name in full, `attempts` in the options, a 27-character id.
    const oldId = 'a-mhx9k2ab-0123456789abcdef';
    await api.cluster.bull
      .get('mail')
      .add('noop', { payload: { v: 1 }, createdBy: 'billing' }, { jobId: oldId, attempts: 3 });
    await api.cluster.runs.reading.producers.register('billing');
    const { id } = await api.cluster.runs.enqueue({
      ...{ id: 'a-mhx9k2ac-0123456789', routine: null, jobType: 'noop', queue: 'mail', source: 'api' as const },
      ...{ scheduledFor: null, payload: { v: 1 }, createdBy: 'billing', freshId: true },
    });
    const stored = await api.cluster.connections.command.hmget(
      api.cluster.bull.keys.bullJob('mail', id),
      'data',
      'opts',
    );
    expect(stored.map((v) => JSON.parse(v!))).toEqual([{ payload: { v: 1 }, by: expect.any(String) }, {}]);
    const [old, lean] = [(await runOf(oldId, 'succeeded')).body, (await runOf(id, 'succeeded')).body];
    // What differs between two runs whatever their format: the id and the times.
    const same = (run: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(run).filter(([k]) => k !== 'id' && !k.endsWith('At')));
    expect(old).toMatchObject({ createdBy: 'billing', maxAttempts: 3, attempt: 1, status: 'succeeded' });
    expect(same(lean)).toEqual(same(old));
    const listed = (await api.call('GET', '/runs?queue=mail', { as: 'viewer' })).body.items as { id: string }[];
    expect(listed.filter((r) => r.id === oldId || r.id === id)).toEqual([
      expect.objectContaining({ createdBy: 'billing', maxAttempts: 3 }),
      expect.objectContaining({ createdBy: 'billing', maxAttempts: 3 }),
    ]);
  }, 30_000);

  it('lists every runs route in the OpenAPI document with its role and answer schemas', async () => {
    const doc = (await api.call('GET', '/openapi.json', { as: 'none' })).body;
    const op = (path: string, method: string) => doc.paths[path][method];
    expect(op('/api/v1/jobs', 'post')).toMatchObject({ 'x-drover-role': 'operator', operationId: 'enqueueJob' });
    expect(op('/api/v1/jobs', 'post').parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
    );
    expect(op('/api/v1/runs', 'get')['x-drover-role']).toBe('viewer');
    expect(op('/api/v1/runs/{id}', 'get').responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Run',
    });
    expect(op('/api/v1/runs/{id}/cancel', 'post').responses).toHaveProperty('202');
    expect(op('/api/v1/runs/{id}/events', 'get').responses['200'].content).toHaveProperty(['text/event-stream']);
    expect(op('/api/v1/events', 'get')['x-drover-role']).toBe('viewer');
    expect(doc.components.schemas.Run.additionalProperties).toBe(false);
  }, 30_000);
});
