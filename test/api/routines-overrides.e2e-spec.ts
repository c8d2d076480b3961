import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { ApiCluster, expectProblem } from './support/api-cluster';
import { anIso } from './support/iso';

/**
 * A selector routine's overrides and its candidates' dry run over HTTP, against a real api and
 * scheduler (no worker: every run stays queued, so what is pending is fixed) and an HTTP service
 * answering the `http.candidates` provider.
 */
describe('routines api: overrides and candidates of a selector routine', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) =>
        path === '/candidates'
          ? {
              json: [
                { key: 'old-docs', band: 2, stalenessSec: 150 },
                { key: 'deep-api', band: 2, stalenessSec: 100, depth: 3 },
                { key: 'critic', band: 1, stalenessSec: 10 },
                { key: 'off', band: 1, stalenessSec: 9_999, disabled: true },
              ],
            }
          : undefined,
    });
    api = await ApiCluster.start('api-overrides', {
      policy: { queues: [{ name: 'default' }], routines: [] },
      worker: false,
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const ranking = async () => {
    const res = await api.call('GET', '/routines/metas/candidates', { as: 'operator' });
    expect(res.status).toBe(200);
    return (res.body.items as { key: string; verdict: string }[]).map((c) => `${c.key}:${c.verdict}`);
  };

  it('ranks candidates, takes overrides (once per key), and clears only overrides', async () => {
    const created = await api.call('POST', '/routines', {
      as: 'operator',
      body: {
        name: 'metas',
        jobType: 'noop',
        queue: 'default',
        status: 'paused',
        trigger: { kind: 'interval', everyMs: 1000 },
        selector: { provider: 'http.candidates', args: { url: `${oracle.url}/candidates` }, maxPerTick: 2 },
      },
    });
    expect(created.status).toBe(201);

    // The dry run, while the routine is paused: band first, then weighted staleness (100 × 4^0.5 = 200 > 150).
    const dry = await api.call('GET', '/routines/metas/candidates', { as: 'operator' });
    expect(dry.body).toMatchObject({ routine: 'metas', at: anIso(), provider: 'http.candidates', maxPerTick: 2 });
    expect(dry.body.error).toBeNull();
    expect(dry.body.items[2]).toMatchObject({ rank: 3, key: 'deep-api', weightedStalenessSec: 200, verdict: 'chosen' });
    expect(await ranking()).toEqual([
      'off:disabled',
      'critic:chosen',
      'deep-api:chosen',
      'old-docs:beyond-max-per-tick',
    ]);
    expectProblem(await api.call('GET', '/routines/metas/candidates', { as: 'viewer' }), 403);

    // An override, and a second one for the same key while it is pending: 409 naming the run.
    const added = await api.call('POST', '/routines/metas/overrides', { as: 'operator', body: { key: 'old-docs' } });
    expect(added.status).toBe(201);
    const overrideRun = added.body.runId as string;
    const dup = await api.call('POST', '/routines/metas/overrides', { as: 'operator', body: { key: 'old-docs' } });
    expect(expectProblem(dup, 409).detail).toContain(overrideRun);
    const listed = await api.call('GET', '/routines/metas/overrides', { as: 'viewer' });
    expect(listed.body.items).toEqual([
      { key: 'old-docs', runId: overrideRun, status: 'queued', createdAt: anIso(), createdBy: 'operator-token' },
    ]);
    expect(await ranking()).toEqual(['off:disabled', 'critic:chosen', 'deep-api:chosen', 'old-docs:pending-override']);

    // Resumed, a tick enqueues the two chosen keys; nothing runs them (no worker).
    expect((await api.call('POST', '/routines/metas/resume', { as: 'operator' })).status).toBe(200);
    const automatic = async () =>
      (await api.cluster.runs.openRunsOfRoutine('metas', { readOnly: true })).filter((r) => r.source !== 'manual');
    await waitFor('the automatic runs', async () => (await automatic()).length === 2, { timeoutMs: 15_000 });
    expect(await ranking()).toEqual([
      'off:disabled',
      'critic:pending-run',
      'deep-api:pending-run',
      'old-docs:pending-override',
    ]);

    // Clearing cancels the override only; the automatic runs stay queued.
    const cleared = await api.call('DELETE', '/routines/metas/overrides', { as: 'operator' });
    expect([cleared.status, cleared.body]).toEqual([200, { cleared: [overrideRun] }]);
    expect((await api.call('GET', `/runs/${overrideRun}`, { as: 'viewer' })).body.status).toBe('canceled');
    const left = await automatic();
    expect(left.map((r) => [r.key, r.status]).sort()).toEqual([
      ['critic', 'queued'],
      ['deep-api', 'queued'],
    ]);
    expect((await api.call('GET', '/routines/metas/overrides', { as: 'viewer' })).body.items).toEqual([]);
    // The key is free again.
    expect(
      (await api.call('POST', '/routines/metas/overrides', { as: 'operator', body: { key: 'old-docs' } })).status,
    ).toBe(201);

    // Who did it is in the audit log, like a trigger.
    const audit = await api.call('GET', '/audit?page_size=50', { as: 'admin' });
    const actions = (audit.body.items as { action: string; token: string }[]).map((e) => `${e.action} ${e.token}`);
    expect(actions).toEqual(expect.arrayContaining(['addOverride operator-token', 'clearOverrides operator-token']));
  }, 60_000);

  it('refuses overrides and candidates for a routine that is not a selector', async () => {
    const body = {
      name: 'plain',
      jobType: 'noop',
      queue: 'default',
      status: 'paused',
      trigger: { kind: 'interval', everyMs: 60_000 },
    };
    expect((await api.call('POST', '/routines', { as: 'operator', body })).status).toBe(201);
    expectProblem(await api.call('POST', '/routines/plain/overrides', { as: 'operator', body: { key: 'k' } }), 409);
    expectProblem(await api.call('GET', '/routines/plain/candidates', { as: 'operator' }), 409);
    expectProblem(await api.call('GET', '/routines/nope/overrides', { as: 'viewer' }), 404);
    expectProblem(await api.call('POST', '/routines/metas/overrides', { as: 'operator', body: { key: '' } }), 400);
  });

  it('answers 503 with Retry-After when no scheduler is there to run the provider', async () => {
    await api.scheduler!.stop();
    const res = await api.call('GET', '/routines/metas/candidates', { as: 'operator' });
    expect(expectProblem(res, 503).detail).toMatch(/no scheduler answered/);
    expect(res.headers.get('retry-after')).toBe('5');
  }, 30_000);
});
