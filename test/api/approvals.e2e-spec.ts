import { z } from 'zod';
import { RunSchema } from '../../libs/api/src/runs/run-schema';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { droverAs } from '../cli/support/drover-cli';
import { ApiCluster, expectProblem } from './support/api-cluster';

const EXPIRY_MS = 3_000;

/**
 * Approval gates with real api, scheduler and worker processes, counted at the receiver (an HTTP
 * oracle): a run awaiting approval is never delivered; an approved one exactly once; a rejected
 * one never; one nobody decided on is never delivered and ends rejected by its expiry. The
 * decisions go through the API (audited, operator only) and the built `drover` binary.
 */
describe('approval gates (real api + scheduler + worker)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  let cli: ReturnType<typeof droverAs>;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    api = await ApiCluster.start('approvals', {
      policy: {
        queues: [
          { name: 'default', maxAttempts: 1 },
          { name: 'gated', maxAttempts: 1, approval: { required: true } },
          { name: 'expiring', maxAttempts: 1, approval: { required: true, expiresAfterMs: EXPIRY_MS } },
        ],
        routines: [
          {
            name: 'needs-ok',
            jobType: 'http.request',
            queue: 'default',
            trigger: { kind: 'manual' },
            approval: { required: true },
            payload: { url: `${oracle.url}/routine`, method: 'POST' },
          },
        ],
      },
    });
    cli = droverAs(api, 'operator');
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const enqueue = async (queue: string, path: string): Promise<string> => {
    const body = { jobType: 'http.request', queue, payload: { url: `${oracle.url}${path}`, method: 'POST' } };
    const res = await api.call('POST', '/jobs', { as: 'operator', body });
    expect(res.status).toBe(201);
    return res.body.runId as string;
  };
  const getRun = async (id: string) => (await api.call('GET', `/runs/${id}`, { as: 'viewer' })).body;
  const delivered = (id: string) => oracle.hits.filter((h) => h.runId === id).length;
  const settled = (id: string, status: string) =>
    waitFor(`run ${id} ${status}`, async () => ((await getRun(id)).status === status ? getRun(id) : undefined), {
      timeoutMs: 15_000,
    });

  it('holds gated runs; an approve delivers one exactly once, a reject never; a second decision is a 409', async () => {
    const [a, b, c] = [await enqueue('gated', '/a'), await enqueue('gated', '/b'), await enqueue('gated', '/c')];
    const waiting = await getRun(a);
    expect(waiting).toMatchObject({ status: 'awaiting-approval', approval: { required: true, state: 'waiting' } });
    expect(z.strictObject(RunSchema.shape).safeParse(waiting).error).toBeUndefined();

    const listed = await api.call('GET', '/runs?status=awaiting-approval&queue=gated', { as: 'viewer' });
    expect(listed.body.items.map((r: { id: string }) => r.id).sort()).toEqual([a, b, c].sort());
    const ls = await cli(['-o', 'json', 'runs', 'ls', '--status', 'awaiting-approval', '--queue', 'gated']);
    expect(ls.code).toBe(0);
    expect((JSON.parse(ls.stdout) as { id: string }[]).map((r) => r.id).sort()).toEqual([a, b, c].sort());

    // A viewer may not decide.
    expectProblem(await api.call('POST', `/runs/${a}/approve`, { as: 'viewer' }), 403);

    const approved = await api.call('POST', `/runs/${a}/approve`, { as: 'operator', body: { reason: 'looks right' } });
    expect(approved.status).toBe(200);
    expect(approved.body.approval).toMatchObject({ state: 'approved', by: 'operator-token', reason: 'looks right' });
    await settled(a, 'succeeded');
    const twice = expectProblem(await api.call('POST', `/runs/${a}/approve`, { as: 'operator' }), 409);
    expect(twice.detail).toContain('no longer awaiting approval');

    const rejected = await cli(['runs', 'reject', b, '--reason', 'not today']);
    expect([rejected.code, rejected.stdout]).toEqual([0, `run ${b} rejected; it is canceled\n`]);
    expect(await getRun(b)).toMatchObject({
      status: 'canceled',
      reason: 'not today',
      approval: { state: 'rejected', by: 'operator-token', reason: 'not today' },
    });
    const late = await cli(['runs', 'approve', b]);
    expect(late.code).not.toBe(0);
    expect(late.stderr).toContain('no longer awaiting approval');

    // Give a wrongly released run time to arrive: only the approved one ever reaches the receiver.
    await new Promise((r) => setTimeout(r, 1_500));
    expect([delivered(a), delivered(b), delivered(c)]).toEqual([1, 0, 0]);
    expect(await getRun(c)).toMatchObject({ status: 'awaiting-approval' });

    const shown = await cli(['runs', 'get', a]);
    expect(shown.stdout).toMatch(/approval\s+approved by operator-token .* — looks right/);

    const audit = await api.call('GET', '/audit', { as: 'admin' });
    const actions = (audit.body.items as { action: string; target: string; status: number }[]).map(
      (e) => `${e.action} ${e.target} ${e.status}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        `approveRun id=${a} 200`,
        `approveRun id=${a} 409`,
        `rejectRun id=${b} 200`,
        `approveRun id=${b} 409`,
      ]),
    );
  }, 60_000);

  it('a run nobody decided on is never delivered and ends rejected by its expiry, once', async () => {
    const e = await enqueue('expiring', '/e');
    const waiting = await getRun(e);
    expect(waiting).toMatchObject({ status: 'awaiting-approval', approval: { state: 'waiting' } });
    expect(Date.parse(waiting.approval.expiresAt)).toBeGreaterThan(Date.now());
    const done = await settled(e, 'canceled');
    expect(done).toMatchObject({ reason: 'approval-expired', approval: { state: 'expired' } });
    expectProblem(await api.call('POST', `/runs/${e}/approve`, { as: 'operator' }), 409);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(delivered(e)).toBe(0);
  }, 30_000);

  it("gates a routine's runs by the routine's own policy, in an ungated queue", async () => {
    const fired = await api.call('POST', '/routines/needs-ok/trigger', { as: 'operator' });
    const id = fired.body.runId as string;
    expect(await getRun(id)).toMatchObject({ status: 'awaiting-approval', routine: 'needs-ok' });
    const plain = await enqueue('default', '/plain');
    await settled(plain, 'succeeded');
    expect(delivered(id)).toBe(0);
    expect((await api.call('POST', `/runs/${id}/approve`, { as: 'operator' })).status).toBe(200);
    await settled(id, 'succeeded');
    expect(delivered(id)).toBe(1);
  }, 30_000);

  it('counts the runs awaiting approval on the leader’s /metrics', async () => {
    await waitFor(
      'drover_runs_awaiting_approval for gated',
      async () => {
        const text = await (await fetch(`${api.scheduler!.baseUrl}/metrics`)).text();
        return /^drover_runs_awaiting_approval\{queue="gated"\} 1$/m.test(text) ? text : undefined;
      },
      { timeoutMs: 15_000 },
    );
  }, 30_000);
});
