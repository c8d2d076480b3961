import { startHttpOracle, type HttpOracle } from '@drover/testing';
import { ApiCluster, expectProblem } from './support/api-cluster';
import { anIso } from './support/iso';

/**
 * Archiving over HTTP against a real api, scheduler and worker, with an HTTP receiver outside
 * Redis counting what the routine's `http.request` runs deliver.
 */
describe('routines api: archive and unarchive', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    api = await ApiCluster.start('api-routines-archive', {
      policy: { queues: [{ name: 'default', concurrency: 20 }], routines: [] },
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const hitsOf = (routine: string) => oracle.hits.filter((h) => h.routine === routine);
  const deliveredAfter = (routine: string, at: number) =>
    hitsOf(routine).filter((h) => Date.parse(h.scheduledFor) > at);
  const names = (res: { body: { items: { name: string }[] } }) => res.body.items.map((r) => r.name);
  /** Several of its one-second slots come due, are prepared ahead, and pass. */
  const settle = () => new Promise((r) => setTimeout(r, 4_000));

  const FILE = {
    name: 'archived-file',
    jobType: 'http.request',
    queue: 'default',
    trigger: { kind: 'interval', everyMs: 1000 },
    payload: { url: '', method: 'POST' },
  };
  const bundle = () => ({
    queues: [{ name: 'default', concurrency: 20 }],
    routines: [{ ...FILE, payload: { url: `${oracle.url}/${FILE.name}`, method: 'POST' } }],
  });

  it('archived, a routine fires nothing, keeps its runs and leaves default listings; unarchived, it fires again', async () => {
    expect((await api.call('POST', '/apply', { as: 'admin', body: bundle() })).status).toBe(200);
    await oracle.waitFor('two deliveries', () => hitsOf(FILE.name).length >= 2, 15_000);

    const archived = await api.call('POST', `/routines/${FILE.name}/archive`, { as: 'operator' });
    const archivedAt = Date.now();
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({
      status: 'archived',
      nextFireAt: null,
      archive: { at: anIso(), by: 'operator-token' },
    });
    // A repeat is harmless: the same routine, the same version.
    const again = await api.call('POST', `/routines/${FILE.name}/archive`, { as: 'operator' });
    expect([again.status, again.body.version, again.body.archive]).toEqual([
      200,
      archived.body.version,
      archived.body.archive,
    ]);

    await settle();
    expect(deliveredAfter(FILE.name, archivedAt)).toEqual([]);

    expect(names(await api.call('GET', '/routines', { as: 'viewer' }))).not.toContain(FILE.name);
    expect(names(await api.call('GET', '/routines?status=archived', { as: 'viewer' }))).toEqual([FILE.name]);
    expect(names(await api.call('GET', '/routines?include=archived', { as: 'viewer' }))).toContain(FILE.name);
    const runs = await api.call('GET', `/routines/${FILE.name}/runs`, { as: 'viewer' });
    expect(runs.body.items.length).toBeGreaterThanOrEqual(2);
    const stats = await api.call('GET', `/routines/${FILE.name}/stats`, { as: 'viewer' });
    expect(stats.status).toBe(200);

    // An apply of the policy file does not bring it back, and neither does an edit.
    const applied = await api.call('POST', '/apply', { as: 'admin', body: bundle() });
    expect(applied.status).toBe(200);
    const edited = await api.call('PATCH', `/routines/${FILE.name}`, { as: 'operator', body: { priority: 'high' } });
    expect(edited.body).toMatchObject({ status: 'archived', definition: { priority: 'high' } });
    const put = await api.call('PUT', `/routines/${FILE.name}`, { as: 'operator', body: bundle().routines[0] });
    expect(put.body.status).toBe('archived');
    expect((await api.call('POST', '/apply', { as: 'admin', body: bundle() })).status).toBe(200);
    expect((await api.call('GET', `/routines/${FILE.name}`, { as: 'viewer' })).body).toMatchObject({
      status: 'archived',
      drifted: false,
    });

    const unarchived = await api.call('POST', `/routines/${FILE.name}/unarchive`, { as: 'operator' });
    const unarchivedAt = Date.now();
    expect(unarchived.status).toBe(200);
    expect(unarchived.body).toMatchObject({ status: 'active', archive: null, nextFireAt: anIso() });
    await oracle.waitFor(
      'a delivery after unarchiving',
      () => deliveredAfter(FILE.name, unarchivedAt).length >= 1,
      15_000,
    );
    // No slot it slept through was caught up.
    expect(deliveredAfter(FILE.name, archivedAt).every((h) => Date.parse(h.scheduledFor) >= unarchivedAt - 1000)).toBe(
      true,
    );
    const second = await api.call('POST', `/routines/${FILE.name}/unarchive`, { as: 'operator' });
    expect([second.status, second.body.status]).toEqual([200, 'active']);
  }, 90_000);

  it('refuses to trigger, backfill, pause or resume an archived routine (409), and viewers (403)', async () => {
    const body = {
      name: 'archived-manual',
      jobType: 'noop',
      queue: 'default',
      trigger: { kind: 'interval', everyMs: 60_000 },
    };
    expect((await api.call('POST', '/routines', { as: 'operator', body })).status).toBe(201);
    expectProblem(await api.call('POST', '/routines/archived-manual/archive', { as: 'viewer' }), 403);
    expect((await api.call('POST', '/routines/archived-manual/archive', { as: 'operator' })).status).toBe(200);
    for (const [verb, body_] of [
      ['pause', {}],
      ['resume', undefined],
    ] as const) {
      const refused = expectProblem(
        await api.call('POST', `/routines/archived-manual/${verb}`, { as: 'operator', body: body_ }),
        409,
      );
      expect(refused.detail).toMatch(/archived.*unarchive it first/);
      expect((refused as { code?: string }).code).toBe('routine-archived');
    }
    const trigger = expectProblem(await api.call('POST', '/routines/archived-manual/trigger', { as: 'operator' }), 409);
    expect(trigger.detail).toMatch(/archived/);
    const now = Date.now();
    const backfill = await api.call('POST', '/routines/archived-manual/backfill', {
      as: 'operator',
      body: { from: new Date(now - 600_000).toISOString(), to: new Date(now - 1000).toISOString() },
    });
    expectProblem(backfill, 409);
    expectProblem(await api.call('POST', '/routines/no-such-routine/archive', { as: 'operator' }), 404);
  });

  it('lets only admins archive or unarchive a system routine', async () => {
    const body = {
      name: 'archived-system',
      jobType: 'noop',
      queue: 'default',
      system: true,
      trigger: { kind: 'interval', everyMs: 60_000 },
    };
    expect((await api.call('POST', '/routines', { as: 'admin', body })).status).toBe(201);
    expectProblem(await api.call('POST', '/routines/archived-system/archive', { as: 'operator' }), 403);
    expect((await api.call('POST', '/routines/archived-system/archive', { as: 'admin' })).body.status).toBe('archived');
    expectProblem(await api.call('POST', '/routines/archived-system/unarchive', { as: 'operator' }), 403);
    expect((await api.call('POST', '/routines/archived-system/unarchive', { as: 'admin' })).body.status).toBe('active');
  });

  it('records archive and unarchive in the audit log', async () => {
    const audit = await api.call('GET', '/audit?page_size=200', { as: 'admin' });
    const actions = (audit.body.items as { action: string }[]).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['archiveRoutine', 'unarchiveRoutine']));
  });
});
