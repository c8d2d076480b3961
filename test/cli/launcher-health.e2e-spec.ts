import { waitFor } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { droverAs } from './support/drover-cli';

const gauge = async (api: ApiCluster, status: string): Promise<number | undefined> => {
  const text = await (await fetch(`${api.scheduler!.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`drover_routines{status="${status}"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

/**
 * A routine whose condition check fails `maxLaunchFailures` times in a row, as real processes see it:
 * the launcher's health in the API's view and the CLI, the `drover_routines{status="disabled"}` gauge
 * on the scheduler leader, and the operator's way out (`drover routines enable`), audited.
 */
describe('launcher health: auto-disable seen and lifted (real processes)', () => {
  let api: ApiCluster;
  let operator: ReturnType<typeof droverAs>;

  beforeAll(async () => {
    api = await ApiCluster.start('launcher-health', {
      worker: false,
      policy: { queues: [{ name: 'default' }], routines: [] },
    });
    operator = droverAs(api, 'operator');
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  }, 30_000);

  it('shows failures, the disable and its reason (API, CLI, gauge), and enable lifts it', async () => {
    // No scheduler registers this check: every slot's check fails (a launch failure).
    const body = {
      name: 'gated',
      jobType: 'noop',
      queue: 'default',
      trigger: { kind: 'interval', everyMs: 1000 },
      condition: 'no-such-check',
      maxLaunchFailures: 2,
    };
    expect((await api.call('POST', '/routines', { as: 'operator', body })).status).toBe(201);
    const view = await waitFor(
      'the launcher to disable the routine',
      async () => {
        const r = (await api.call('GET', '/routines/gated', { as: 'viewer' })).body;
        return r.disabledReason ? r : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(view).toMatchObject({
      status: 'active',
      nextFireAt: null,
      disabledReason: expect.stringMatching(/launch failed 2 times in a row \(maxLaunchFailures 2\).*no-such-check/),
      launcher: {
        consecutiveFailures: 2,
        backoffUntil: null,
        lastError: expect.stringMatching(/no-such-check/),
        disabledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    });
    const listed = (await api.call('GET', '/routines?status=disabled', { as: 'viewer' })).body;
    expect(listed.items.map((r: { name: string }) => r.name)).toEqual(['gated']);

    const get = await operator(['routines', 'get', 'gated']);
    expect(get.stdout).toMatch(/^status\s+disabled$/m);
    expect(get.stdout).toMatch(/^launch failures\s+2$/m);
    expect(get.stdout).toMatch(/^last launch error\s+.*no-such-check/m);
    expect(get.stdout).toMatch(/^disabled\s+.*launch failed 2 times.*re-enable: drover routines enable gated\)$/m);
    expect((await operator(['routines', 'ls'])).stdout).toMatch(
      /^gated\s+disabled\s+every 1s\s+default\s+-\s+disabled (now|.* ago)\s/m,
    );

    await waitFor('the leader to count it as disabled', async () => (await gauge(api, 'disabled')) === 1, {
      timeoutMs: 15_000,
      intervalMs: 200,
    });
    expect(await gauge(api, 'active')).toBe(0);

    // An edit (the check dropped) keeps it disabled; enable lifts it, and it fires again.
    const fixed = { ...body, condition: undefined };
    expect((await api.call('PUT', '/routines/gated', { as: 'operator', body: fixed })).status).toBe(200);
    expect((await api.call('GET', '/routines/gated', { as: 'viewer' })).body.disabledReason).toMatch(/launch failed/);
    const enabled = await operator(['routines', 'enable', 'gated']);
    expect([enabled.code, enabled.stdout]).toEqual([
      0,
      expect.stringMatching(/^routine gated active, next fire (now|in )/),
    ]);
    const after = (await api.call('GET', '/routines/gated', { as: 'viewer' })).body;
    expect(after).toMatchObject({
      disabledReason: null,
      launcher: { consecutiveFailures: 0, backoffUntil: null, lastError: null, disabledAt: null },
    });
    await waitFor('the leader to count it as active again', async () => (await gauge(api, 'active')) === 1, {
      timeoutMs: 15_000,
      intervalMs: 200,
    });
    expect(await gauge(api, 'disabled')).toBe(0);
    await waitFor(
      'the routine to fire again',
      async () => {
        const runs = (await api.call('GET', '/routines/gated/runs', { as: 'viewer' })).body;
        return runs.items.some((r: { status: string }) => r.status !== 'skipped');
      },
      { timeoutMs: 15_000, intervalMs: 200 },
    );
    const audit = (await api.call('GET', '/audit', { as: 'admin' })).body;
    expect(audit.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: 'enableRoutine', token: 'operator-token' })]),
    );
  }, 90_000);
});
