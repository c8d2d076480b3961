import { waitFor } from '@drover/testing';
import { ApiCluster, expectProblem } from './support/api-cluster';
import { anIso, msOf } from './support/iso';

const HOUR = 3_600_000;

/** The cluster view and the plan against a real api, scheduler and worker. */
describe('cluster and plan api (real api + scheduler + worker)', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('api-cluster', {
      policy: {
        queues: [{ name: 'default', concurrency: 4 }],
        routines: [{ name: 'hourly', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: HOUR } }],
      },
    });
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  it('shows the leader with its epoch, the scheduler, the worker with queues and handlers, and this api', async () => {
    const cluster = await waitFor('the leader to be announced', async () => {
      const res = await api.call('GET', '/cluster', { as: 'viewer' });
      expect(res.status).toBe(200);
      return (
        res.body.leader?.since !== undefined && res.body.workers.length > 0 && res.body.apis.length > 0 && res.body
      );
    });
    const process = { version: expect.any(String), pid: expect.any(Number), hostname: expect.any(String) };
    expect(cluster).toEqual({
      now: anIso(),
      leader: {
        instance: 'api-cluster-scheduler',
        epoch: expect.any(Number),
        since: anIso(),
        leaseExpiresInMs: expect.any(Number),
      },
      schedulers: [
        {
          instanceId: 'api-cluster-scheduler',
          ...process,
          startedAt: anIso(),
          heartbeatAt: anIso(),
          leader: true,
        },
      ],
      workers: [
        {
          instanceId: 'api-cluster-worker',
          ...process,
          startedAt: anIso(),
          heartbeatAt: anIso(),
          draining: false,
          queues: [{ name: 'default', concurrency: 4 }],
          jobTypes: expect.arrayContaining(['noop', 'sleep', 'http.request']),
        },
      ],
      apis: [
        {
          instanceId: 'api-cluster-api',
          ...process,
          startedAt: anIso(),
          heartbeatAt: anIso(),
          self: true,
        },
      ],
    });
    expect(cluster.leader.epoch).toBeGreaterThan(0);
    expect(msOf(cluster.leader.since)).toBeLessThanOrEqual(msOf(cluster.now));
    expect(cluster.leader.leaseExpiresInMs).toBeGreaterThan(0);
  });

  it('answers the plan with reasons, and says which queues it read only in part', async () => {
    await api.call('POST', '/queues/default/pause', { as: 'operator' });
    const base = { routine: null, jobType: 'noop', queue: 'default', source: 'api' as const, scheduledFor: null };
    await api.cluster.runs.enqueueMany([
      { ...base, id: 'waits-1', payload: {} },
      { ...base, id: 'waits-2', payload: {} },
    ]);
    const plan = await api.call('GET', '/plan?runs_per_queue=1', { as: 'viewer' });
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({
      now: anIso(),
      fires: expect.any(Array),
      skips: expect.any(Array),
      starts: [],
      upcoming: [{ routine: 'hourly', at: anIso() }],
      truncated: ['default'],
    });
    expect(plan.body.waiting).toContainEqual({
      subject: { kind: 'run', id: 'waits-1', queue: 'default' },
      reason: 'queue-paused',
    });
    expect(msOf(plan.body.upcoming[0].at) - msOf(plan.body.now)).toBeLessThanOrEqual(HOUR);
    const whole = await api.call('GET', '/plan');
    expect(whole.body.truncated).toEqual([]);
    expect(whole.body.waiting.filter((w: { reason: string }) => w.reason === 'queue-paused')).toHaveLength(2);

    expect(expectProblem(await api.call('GET', '/plan?runs_per_queue=0&horizon=1'), 400).errors).toEqual([
      { path: 'query.runs_per_queue', message: expect.stringContaining('>=1') },
      { path: 'query.horizon', message: expect.stringContaining('unknown field "horizon"') },
    ]);
    await api.call('POST', '/queues/default/resume', { as: 'operator' });
  });

  it('answers the instants of the plan in UTC, whatever offset a request gave them in', async () => {
    const until = new Date(Date.now() + 2 * HOUR);
    until.setUTCMilliseconds(0);
    // The same instant written one hour east of UTC.
    const east = new Date(until.getTime() + HOUR).toISOString().replace('.000Z', '+01:00');
    const paused = await api.call('POST', '/routines/hourly/pause', { as: 'operator', body: { until: east } });
    expect(paused.status).toBe(200);
    expect(paused.body.pause).toMatchObject({ at: anIso(), until: until.toISOString() });
    const plan = await api.call('GET', '/plan', { as: 'viewer' });
    expect(plan.body.waiting).toContainEqual({
      subject: { kind: 'routine', name: 'hourly' },
      reason: 'paused',
      detail: 'paused by operator-token',
      until: until.toISOString(),
    });
    await api.call('POST', '/routines/hourly/resume', { as: 'operator' });
  });

  it('documents the queue, operation, plan and cluster routes in the OpenAPI document with their roles', async () => {
    const doc = (await api.call('GET', '/openapi.json', { as: 'none' })).body;
    const role = (path: string, method: string) => doc.paths[`/api/v1${path}`]?.[method]?.['x-drover-role'];
    expect({
      listQueues: role('/queues', 'get'),
      getQueue: role('/queues/{name}', 'get'),
      pause: role('/queues/{name}/pause', 'post'),
      resume: role('/queues/{name}/resume', 'post'),
      parked: role('/queues/{name}/parked', 'get'),
      replayOne: role('/queues/{name}/parked/{id}/replay', 'post'),
      purgeOne: role('/queues/{name}/parked/{id}', 'delete'),
      replayAll: role('/queues/{name}/parked/replay', 'post'),
      purgeAll: role('/queues/{name}/parked/purge', 'post'),
      operation: role('/operations/{id}', 'get'),
      plan: role('/plan', 'get'),
      cluster: role('/cluster', 'get'),
    }).toEqual({
      listQueues: 'viewer',
      getQueue: 'viewer',
      pause: 'operator',
      resume: 'operator',
      parked: 'viewer',
      replayOne: 'operator',
      purgeOne: 'admin',
      replayAll: 'operator',
      purgeAll: 'admin',
      operation: 'viewer',
      plan: 'viewer',
      cluster: 'viewer',
    });
    for (const name of ['Queue', 'QueuePolicy', 'Run', 'ParkedPage', 'Operation', 'Plan', 'Cluster']) {
      expect(doc.components.schemas[name]).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });

  it('keeps the cluster view and the plan to tokens', async () => {
    expectProblem(await api.call('GET', '/cluster', { as: 'none' }), 401);
    expectProblem(await api.call('GET', '/plan', { as: 'none' }), 401);
  });
});
