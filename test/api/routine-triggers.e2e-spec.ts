import { ApiCluster, expectProblem } from './support/api-cluster';

const weekdays = { kind: 'cron', cron: '0 9 * * 1-5', tz: 'Europe/Berlin', name: 'weekdays' };
const weekends = { kind: 'cron', cron: '0 12 * * 6,0' };
const office = (extra: Record<string, unknown> = {}) => ({
  name: 'office',
  jobType: 'noop',
  queue: 'default',
  triggers: [weekdays, weekends],
  ...extra,
});

/**
 * Triggers through a real api process: several triggers (validation, the view, preview and a PATCH),
 * and a cron's preview in UTC and local time across a DST gap.
 */
describe('routines api: triggers and their preview', () => {
  let api: ApiCluster;

  beforeAll(async () => {
    api = await ApiCluster.start('api-triggers', {
      policy: { queues: [{ name: 'default' }], routines: [] },
      worker: false,
    });
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  it('refuses both fields, or a once in the list, naming the field', async () => {
    const both = expectProblem(
      await api.call('POST', '/routines', { as: 'operator', body: office({ trigger: weekends }) }),
      400,
    );
    expect(both.errors).toEqual([
      {
        path: 'body.triggers',
        message: 'a routine has either "trigger" or "triggers", not both; move the trigger into the list',
      },
    ]);
    const once = expectProblem(
      await api.call('POST', '/routines', {
        as: 'operator',
        body: office({ triggers: [weekdays, { kind: 'once', at: '2026-12-24T18:00:00Z' }] }),
      }),
      400,
    );
    expect(once.errors?.map((e) => e.path)).toEqual(['body.triggers.1.kind']);
  });

  it('stores and shows every trigger, previews the merged stream attributed, and PATCHes back to one trigger', async () => {
    const created = await api.call('POST', '/routines', { as: 'operator', body: office() });
    expect(created.status).toBe(201);
    expect(created.body.definition.triggers).toEqual([weekdays, weekends]);
    expect(created.body.definition.trigger).toBeUndefined();
    expect(Date.parse(created.body.nextFireAt)).toBeGreaterThan(Date.now());
    // 2026-06-05 is a Friday.
    const preview = await api.call('GET', '/routines/office/preview?count=3&from=2026-06-05T00:00:00Z', {
      as: 'viewer',
    });
    expect(preview.body).toEqual({
      routine: 'office',
      tz: 'Europe/Berlin',
      paused: false,
      items: [
        { at: '2026-06-05T07:00:00.000Z', trigger: 'weekdays', local: '2026-06-05T09:00:00.000+02:00' },
        { at: '2026-06-06T12:00:00.000Z', trigger: '1', local: '2026-06-06T12:00:00.000+00:00' },
        { at: '2026-06-07T12:00:00.000Z', trigger: '1', local: '2026-06-07T12:00:00.000+00:00' },
      ],
    });
    const patched = await api.call('PATCH', '/routines/office', {
      as: 'operator',
      body: { triggers: null, trigger: weekends },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.definition.trigger).toEqual(weekends);
    expect(patched.body.definition.triggers).toBeUndefined();
  });

  it('previews fire times in UTC and local time, marking a fire moved by a DST gap', async () => {
    await api.call('POST', '/routines', {
      as: 'operator',
      body: {
        name: 'dst',
        jobType: 'noop',
        queue: 'default',
        trigger: { kind: 'cron', cron: '30 2 * * *', tz: 'Europe/Berlin' },
      },
    });
    const res = await api.call('GET', '/routines/dst/preview?count=3&from=2026-03-27T12:00:00Z', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      routine: 'dst',
      tz: 'Europe/Berlin',
      paused: false,
      items: [
        { at: '2026-03-28T01:30:00.000Z', local: '2026-03-28T02:30:00.000+01:00' },
        { at: '2026-03-29T01:00:00.000Z', local: '2026-03-29T03:00:00.000+02:00', dst: 'gap' },
        { at: '2026-03-30T00:30:00.000Z', local: '2026-03-30T02:30:00.000+02:00' },
      ],
    });
    expect((await api.call('GET', '/routines/dst/preview', { as: 'viewer' })).body.items).toHaveLength(10);
    const bad = expectProblem(
      await api.call('GET', '/routines/dst/preview?count=101&from=tomorrow', { as: 'viewer' }),
      400,
    );
    expect(bad.errors?.map((e) => e.path).sort()).toEqual(['query.count', 'query.from']);
  });
});
