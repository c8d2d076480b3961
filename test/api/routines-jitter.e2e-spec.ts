import { plannedStart } from '@drover/core';
import { ApiCluster, expectProblem } from './support/api-cluster';

/** `jitterMs` through a real api process: validated with its limits, and its planned starts shown. */
describe('routines api: jitterMs', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('api-jitter', { scheduler: false, worker: false });
    await api.cluster.registry.put([{ name: 'default' }]);
  }, 60_000);
  afterAll(() => api?.close(), 30_000);

  const hourly = (jitterMs: unknown) => ({
    name: 'spread',
    jobType: 'noop',
    queue: 'default',
    trigger: { kind: 'cron', cron: '*/10 * * * *' },
    jitterMs,
  });

  it('refuses a jitter over the gap between slots, naming the field, the value and the limit', async () => {
    const over = expectProblem(await api.call('POST', '/routines', { as: 'operator', body: hourly(600_001) }), 400);
    expect(over.errors).toEqual([
      {
        path: 'body.jitterMs',
        message:
          "jitterMs 600001 is over 600000 ms, the trigger's smallest gap between slots; use jitterMs in [0, 600000]",
      },
    ]);
    const negative = expectProblem(await api.call('POST', '/routines', { as: 'operator', body: hourly(-5) }), 400);
    expect(negative.errors?.map((e) => e.path)).toEqual(['body.jitterMs']);
  });

  it('keeps each slot in the preview and adds its planned start', async () => {
    expect((await api.call('POST', '/routines', { as: 'operator', body: hourly(600_000) })).status).toBe(201);
    const res = await api.call('GET', '/routines/spread/preview?count=3&from=2026-03-27T12:00:00Z', { as: 'viewer' });
    const slots = ['2026-03-27T12:10:00.000Z', '2026-03-27T12:20:00.000Z', '2026-03-27T12:30:00.000Z'];
    expect(res.body.items).toEqual(
      slots.map((at) => ({
        at,
        local: at.replace('Z', '+00:00'),
        start: new Date(plannedStart({ name: 'spread', jitterMs: 600_000 }, Date.parse(at))).toISOString(),
      })),
    );
  });
});
