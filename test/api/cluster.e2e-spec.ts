import { isDeepStrictEqual } from 'node:util';
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

  it('answers what a candidate bundle would fire, skip and start at an instant, and writes nothing', async () => {
    const redis = api.cluster.connections.command;
    const snapshot = async () => {
      const names: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', `${api.cluster.prefix}*`, 'COUNT', 1000);
        names.push(...found);
        cursor = next;
      } while (cursor !== '0');
      return {
        // The worker flushes its per-queue run totals on its own clock (each second), after the runs it counts.
        names: names.filter((k) => !k.includes(':{core}:qstats:')).sort(),
        definitions: await redis.hgetall(api.cluster.routines.definitionsKey),
        queues: await redis.hgetall(api.cluster.registry.hashKey),
        hourly: await redis.hgetall(api.cluster.routines.stateKey('hourly')),
      };
    };
    // The worker is done with the runs the plan test enqueued: from here on nothing writes but heartbeats.
    await waitFor('the waiting runs to finish', async () => {
      const runs = await Promise.all(['waits-1', 'waits-2'].map((id) => api.call('GET', `/runs/${id}`)));
      return runs.every((r) => r.body.status === 'succeeded');
    });
    // …and the scheduler has re-armed the routine the previous test resumed: two reads 300 ms apart agree.
    const before = await waitFor('the keys to settle', async () => {
      const first = await snapshot();
      await new Promise((r) => setTimeout(r, 300));
      return isDeepStrictEqual(first, await snapshot()) && first;
    });
    // Two hours past the next hour: its slot is on time, the two before it missed since the stored cursor.
    const at = (Math.floor(Date.now() / HOUR) + 3) * HOUR;
    const bundle = [
      'queues: [{ name: default, concurrency: 4 }]',
      'routines:',
      '  - { name: hourly, jobType: noop, queue: default, trigger: { kind: interval, everyMs: 3600000 }, catchUpPolicy: all }',
      "  - { name: nightly, jobType: noop, queue: default, trigger: { kind: cron, cron: '30 2 * * *', tz: Europe/Berlin } }",
      '  - { name: held, jobType: noop, queue: default, status: paused, trigger: { kind: interval, everyMs: 60000 } }',
    ].join('\n');
    const res = await api.call('POST', `/plan/what-if?at=${new Date(at).toISOString()}&next=2`, {
      as: 'viewer',
      raw: bundle,
      contentType: 'application/yaml',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ at: new Date(at).toISOString(), now: anIso(), truncated: [] });
    expect(res.body.queues).toEqual({ created: [], updated: [], removed: [], unchanged: ['default'] });
    const [held, hourly, nightly] = res.body.routines;
    expect(hourly).toMatchObject({ routine: 'hourly', change: 'updated', status: 'active', skips: [], waiting: [] });
    expect(hourly.fires.map((f: { slot: string; source: string }) => [msOf(f.slot), f.source])).toEqual([
      [at - 2 * HOUR, 'catch-up'],
      [at - HOUR, 'catch-up'],
      [at, 'schedule'],
    ]);
    expect(hourly.next.map((n: { at: string }) => msOf(n.at))).toEqual([at + HOUR, at + 2 * HOUR]);
    expect(nightly).toMatchObject({ change: 'created', fires: [], skips: [] });
    expect(nightly.next[0].local).toMatch(/T02:30:00\.000\+0[12]:00$|T03:00:00\.000\+02:00$/);
    expect(held).toEqual({
      routine: 'held',
      change: 'created',
      status: 'paused',
      queue: 'default',
      fires: [],
      skips: [],
      waiting: [{ reason: 'paused', detail: 'paused' }],
      next: [],
      more: { fires: 0, skips: 0 },
    });
    expect(await snapshot()).toEqual(before);
  });

  it('lists every problem of an invalid candidate bundle in the words validate uses, and keeps its limits', async () => {
    const bad = expectProblem(
      await api.call('POST', '/plan/what-if', {
        as: 'viewer',
        body: {
          queues: [{ name: 'default' }],
          routines: [
            { name: 'a', jobType: 'noop', queue: 'default', trigger: { kind: 'cron', cron: '* * *' } },
            { name: 'b', jobType: 'noop', queue: 'nowhere', trigger: { kind: 'manual' }, catchUpPolicy: 'sometimes' },
          ],
        },
      }),
      400,
    );
    expect(bad.errors?.map((e) => e.path).sort()).toEqual([
      'body.routines[a].trigger.cron',
      'body.routines[b].catchUpPolicy',
      'body.routines[b].queue',
    ]);
    const limits = expectProblem(
      await api.call('POST', '/plan/what-if?slots=0&next=51&at=tomorrow', { as: 'viewer', body: { routines: [] } }),
      400,
    );
    expect(limits.errors?.map((e) => e.path).sort()).toEqual(['query.at', 'query.next', 'query.slots']);
    const many = Array.from({ length: 501 }, (_, i) => ({
      name: `r${i}`,
      jobType: 'noop',
      queue: 'default',
      trigger: { kind: 'manual' },
    }));
    const tooMany = expectProblem(
      await api.call('POST', '/plan/what-if', {
        as: 'viewer',
        body: { queues: [{ name: 'default' }], routines: many },
      }),
      400,
    );
    expect(tooMany.errors).toEqual([{ path: 'body.routines', message: expect.stringContaining('at most 500') }]);
    expectProblem(await api.call('POST', '/plan/what-if', { as: 'none', body: { routines: [] } }), 401);
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
      whatIf: role('/plan/what-if', 'post'),
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
      whatIf: 'viewer',
      cluster: 'viewer',
    });
    for (const name of ['Queue', 'QueuePolicy', 'Run', 'ParkedPage', 'Operation', 'Plan', 'PlanWhatIf', 'Cluster']) {
      expect(doc.components.schemas[name]).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });

  it('keeps the cluster view and the plan to tokens', async () => {
    expectProblem(await api.call('GET', '/cluster', { as: 'none' }), 401);
    expectProblem(await api.call('GET', '/plan', { as: 'none' }), 401);
  });
});
