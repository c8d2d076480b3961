import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';

/**
 * An `http` condition declared in the policy file, with real processes (api, scheduler, worker):
 * the scheduler asks a service before each fire of a 1-second routine; while it answers
 * `{"run": false}` the slots are skipped and nothing is delivered, once it answers `{"run": true}`
 * the routine's `http.request` runs reach the receiver, which counts them.
 */
describe('a routine gated by an http condition from the policy file', () => {
  let oracle: HttpOracle;
  let api: ApiCluster;
  let open = false;
  let asked = 0;

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) => {
        if (path !== '/gate') return undefined;
        asked++;
        return { json: { run: open } };
      },
    });
    api = await ApiCluster.start('http-condition', {
      policy: {
        queues: [{ name: 'default' }],
        routines: [
          {
            name: 'gated',
            jobType: 'http.request',
            queue: 'default',
            trigger: { kind: 'interval', everyMs: 1000 },
            condition: { kind: 'http', url: `${oracle.url}/gate`, headers: { authorization: 'Bearer gate' } },
            payload: { url: `${oracle.url}/deliver`, method: 'POST' },
          },
        ],
      },
      // The condition obeys the same allow-list as http.request: both URLs are on it.
      env: { DROVER_HTTP_ALLOW: `${oracle.url}/gate,${oracle.url}/deliver` },
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const delivered = () => oracle.hits.filter((h) => h.routine === 'gated');

  it('skips while the service says no, and delivers once it says yes', async () => {
    const view = await api.call('GET', '/routines/gated', { as: 'viewer' });
    expect(view.body.definition.condition).toEqual({
      kind: 'http',
      url: `${oracle.url}/gate`,
      headers: { authorization: 'Bearer gate' },
    });

    await waitFor('three asks of the gate', () => asked >= 3, { timeoutMs: 15_000 });
    const skipped = await api.cluster.runs.listByRoutine('gated', { status: 'skipped', limit: 10 });
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    expect(new Set(skipped.map((r) => r.reason))).toEqual(new Set(['condition-false']));
    expect(delivered()).toEqual([]);

    const openedAt = Date.now();
    open = true;
    await oracle.waitFor('two deliveries', () => delivered().length >= 2, 15_000);
    // Only slots whose check came after the gate opened ran (a check is made when its slot fires).
    for (const h of delivered()) expect(Date.parse(h.scheduledFor)).toBeGreaterThan(openedAt - 1000);
    const state = await api.cluster.routines.getState('gated');
    expect(state.consecutiveFailures).toBe(0);
    expect(state.disabledReason).toBeUndefined();
  }, 60_000);
});
