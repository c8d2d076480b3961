import { runIdForSlot } from '@drover/core';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { droverAs } from '../cli/support/drover-cli';
import { ApiCluster, expectProblem } from './support/api-cluster';
import { anIso } from './support/iso';

/**
 * What the routines API does to real work: a real api, scheduler and worker, and an HTTP receiver
 * outside Redis counting what `http.request` runs deliver.
 */
describe('routines api: what deleting, pausing, triggering and backfilling does to deliveries', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    api = await ApiCluster.start('api-routines-runs', {
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

  function http(name: string, trigger: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    return {
      name,
      jobType: 'http.request',
      queue: 'default',
      trigger,
      payload: { url: `${oracle.url}/${name}`, method: 'POST' },
      ...extra,
    };
  }

  async function create(body: Record<string, unknown>): Promise<void> {
    const res = await api.call('POST', '/routines', { as: 'operator', body });
    expect(res.status).toBe(201);
  }

  /** Time for every slot after a change to have come due, been prepared ahead and been refused. */
  const settle = () => new Promise((r) => setTimeout(r, 3_500));

  it('a deleted routine starts nothing afterwards, its prepared runs included', async () => {
    await create(http('every-second-del', { kind: 'interval', everyMs: 1000 }));
    await oracle.waitFor('two deliveries', () => hitsOf('every-second-del').length >= 2, 15_000);
    expect((await api.call('DELETE', '/routines/every-second-del', { as: 'operator' })).status).toBe(204);
    const deletedAt = Date.now();
    await settle();
    expect(deliveredAfter('every-second-del', deletedAt)).toEqual([]);
    expect((await api.cluster.routines.get('every-second-del')) ?? null).toBeNull();
  }, 40_000);

  it('a paused routine starts nothing (prepared runs included); resumed, it runs again', async () => {
    await create(http('every-second-pause', { kind: 'interval', everyMs: 1000 }));
    await oracle.waitFor('two deliveries', () => hitsOf('every-second-pause').length >= 2, 15_000);
    const paused = await api.call('POST', '/routines/every-second-pause/pause', {
      as: 'operator',
      body: { note: 'maintenance', until: new Date(Date.now() + 3_600_000).toISOString() },
    });
    const pausedAt = Date.now();
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({
      status: 'paused',
      nextFireAt: null,
      pause: { note: 'maintenance', by: 'operator-token', until: expect.any(String) },
    });
    await settle();
    expect(deliveredAfter('every-second-pause', pausedAt)).toEqual([]);

    const resumed = await api.call('POST', '/routines/every-second-pause/resume', { as: 'operator' });
    expect(resumed.body).toMatchObject({ status: 'active', pause: null });
    const resumedAt = Date.now();
    await oracle.waitFor(
      'a delivery after resuming',
      () => deliveredAfter('every-second-pause', resumedAt).length > 0,
      10_000,
    );
    await api.call('DELETE', '/routines/every-second-pause', { as: 'operator' });
  }, 40_000);

  it('refuses a pause until a past instant, naming the field', async () => {
    await create(http('manual-pause', { kind: 'manual' }));
    const past = expectProblem(
      await api.call('POST', '/routines/manual-pause/pause', {
        as: 'operator',
        body: { until: '2020-01-01T00:00:00Z' },
      }),
      400,
    );
    expect(past.errors).toEqual([{ path: 'body.until', message: expect.stringContaining('must be in the future') }]);
    expect((await api.cluster.routines.get('manual-pause'))!.def.status).toBe('active');
  });

  it('triggers once per Idempotency-Key, even with ten concurrent calls, also while paused', async () => {
    await create(http('on-demand', { kind: 'manual' }));
    await api.call('POST', '/routines/on-demand/pause', { as: 'operator' });
    const calls = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.call('POST', '/routines/on-demand/trigger', {
          as: 'operator',
          body: { payload: { url: `${oracle.url}/on-demand`, method: 'POST', body: 'once' } },
          headers: { 'idempotency-key': 'report-2026-06-01' },
        }),
      ),
    );
    expect(calls.map((c) => c.status)).toEqual(Array(10).fill(201));
    const ids = new Set(calls.map((c) => c.body.runId as string));
    expect(ids.size).toBe(1);
    const [runId] = [...ids];
    await oracle.waitFor('the triggered run', () => hitsOf('on-demand').length >= 1, 10_000);
    const run = await waitFor('the run to succeed', async () => {
      const r = await api.cluster.run(runId!);
      return r?.status === 'succeeded' ? r : undefined;
    });
    expect(run).toMatchObject({ source: 'manual', createdBy: 'operator-token' });
    // Later calls with the key answer the same run and add nothing.
    const later = await api.call('POST', '/routines/on-demand/trigger', {
      as: 'operator',
      headers: { 'idempotency-key': 'report-2026-06-01' },
    });
    expect(later.body).toEqual({ runId });
    await new Promise((r) => setTimeout(r, 500));
    expect(hitsOf('on-demand')).toHaveLength(1);
    expect(hitsOf('on-demand')[0]!.runId).toBe(runId);

    const other = expectProblem(
      await api.call('POST', '/routines/manual-pause/trigger', {
        as: 'operator',
        headers: { 'idempotency-key': 'report-2026-06-01' },
      }),
      409,
    );
    expect(other.detail).toContain('bound to run');
    const plain = await Promise.all(
      [1, 2].map(() => api.call('POST', '/routines/manual-pause/trigger', { as: 'operator' })),
    );
    expect(plain[0]!.body.runId).not.toBe(plain[1]!.body.runId);
    expectProblem(
      await api.call('POST', '/routines/on-demand/trigger', {
        as: 'operator',
        headers: { 'idempotency-key': '\u00e9' },
      }),
      400,
    );
    expectProblem(await api.call('POST', '/routines/on-demand/trigger', { as: 'viewer' }), 403);
    expectProblem(await api.call('POST', '/routines/nope/trigger', { as: 'operator' }), 404);
  }, 30_000);

  it("lists a routine's runs and counts them in its stats", async () => {
    const runs = await api.call('GET', '/routines/on-demand/runs?status=succeeded', { as: 'viewer' });
    expect(runs.status).toBe(200);
    expect(runs.body.items).toHaveLength(1);
    expect(runs.body.items[0]).toMatchObject({
      status: 'succeeded',
      source: 'manual',
      queue: 'default',
      jobType: 'http.request',
      routine: 'on-demand',
      createdAt: anIso(),
      startedAt: anIso(),
      finishedAt: anIso(),
    });
    // The same Run as GET /runs/{id} answers (one representation of a run everywhere); a list item
    // carries its payload only when asked.
    const { payload, ...withoutPayload } = (await api.call('GET', `/runs/${runs.body.items[0].id}`, { as: 'viewer' }))
      .body;
    expect(payload).toMatchObject({ body: 'once', method: 'POST' });
    expect(runs.body.items[0]).toEqual(withoutPayload);
    const asked = await api.call('GET', '/routines/on-demand/runs?status=succeeded&include=payload', { as: 'viewer' });
    expect(asked.body.items[0]).toEqual({ ...withoutPayload, payload });
    expect((await api.call('GET', '/routines/on-demand/runs?status=parked', { as: 'viewer' })).body.items).toEqual([]);

    const stats = await waitFor('the run in the stats (flushed each second)', async () => {
      const s = await api.call('GET', '/routines/on-demand/stats', { as: 'viewer' });
      return s.body.counts?.succeeded === 1 ? s : undefined;
    });
    expect(stats.body).toMatchObject({
      routine: 'on-demand',
      window: '24h',
      counts: { succeeded: 1, parked: 0, canceled: 0, skipped: 0 },
      total: 1,
      successRatio: 1,
      durationMs: { p50: expect.any(Number), p95: expect.any(Number), p99: expect.any(Number) },
      latenessMs: { p50: expect.any(Number) },
      from: anIso(),
      to: anIso(),
      lastRun: { status: 'succeeded', at: anIso() },
    });
    const bad = expectProblem(await api.call('GET', '/routines/on-demand/stats?window=15m', { as: 'viewer' }), 400);
    expect(bad.errors).toEqual([{ path: 'query.window', message: 'must be at least 1h (stats are kept per hour)' }]);
    expect((await api.call('GET', '/routines/on-demand/stats?window=7d', { as: 'viewer' })).status).toBe(200);
  }, 20_000);

  it('counts skipped slots the scheduler records in the routine stats', async () => {
    await create(http('skippy', { kind: 'manual' }));
    await api.cluster.runs.recordSkipped({
      id: runIdForSlot('skippy', 60_000),
      routine: 'skippy',
      jobType: 'http.request',
      queue: 'default',
      source: 'schedule',
      scheduledFor: 60_000,
      reason: 'catch-up-skip',
    });
    const stats = await api.call('GET', '/routines/skippy/stats?window=1h', { as: 'viewer' });
    expect(stats.body).toMatchObject({
      counts: { skipped: 1 },
      total: 1,
      successRatio: null,
      durationMs: { p50: null },
    });
  });

  it('backfills each slot once, capped by maxCatchUp; a slot the scheduler skipped runs under its own id', async () => {
    const minute = 60_000;
    await create(http('hourly-ish', { kind: 'interval', everyMs: 3_600_000 }, { maxCatchUp: 3 }));
    const to = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const from = to - 5 * 3_600_000;
    const slots = [to - 2 * 3_600_000, to - 3_600_000, to];
    // The scheduler recorded the middle slot as skipped (e.g. catch-up policy skip).
    await api.cluster.runs.recordSkipped({
      id: runIdForSlot('hourly-ish', slots[1]!),
      routine: 'hourly-ish',
      jobType: 'http.request',
      queue: 'default',
      source: 'catch-up',
      scheduledFor: slots[1]!,
      reason: 'catch-up-skip',
    });
    const body = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
    const first = await api.call('POST', '/routines/hourly-ish/backfill', { as: 'operator', body });
    expect(first.status).toBe(201);
    const ids = [
      runIdForSlot('hourly-ish', slots[0]!),
      `b-hourly-ish-${slots[1]}`,
      runIdForSlot('hourly-ish', slots[2]!),
    ];
    expect(first.body).toEqual({ runIds: ids, created: ids, existing: [], capped: 2, cappedExact: true });
    await oracle.waitFor('three backfilled deliveries', () => hitsOf('hourly-ish').length >= 3, 15_000);
    expect(
      hitsOf('hourly-ish')
        .map((h) => Date.parse(h.scheduledFor))
        .sort(),
    ).toEqual(slots);
    expect((await api.cluster.run(ids[0]!))?.source).toBe('catch-up');

    const again = await api.call('POST', '/routines/hourly-ish/backfill', { as: 'operator', body });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ runIds: ids, created: [], existing: ids });
    await new Promise((r) => setTimeout(r, 500));
    expect(hitsOf('hourly-ish')).toHaveLength(3);

    const future = expectProblem(
      await api.call('POST', '/routines/hourly-ish/backfill', {
        as: 'operator',
        body: { from: body.from, to: new Date(Date.now() + 10 * minute).toISOString() },
      }),
      400,
    );
    expect(future.errors).toEqual([{ path: 'body.to', message: expect.stringContaining('future') }]);
    const bad = expectProblem(
      await api.call('POST', '/routines/hourly-ish/backfill', { as: 'operator', body: { from: 'yesterday' } }),
      400,
    );
    expect(bad.errors?.map((e) => e.path).sort()).toEqual(['body.from', 'body.to']);
  }, 30_000);

  it('the slot ledger shows every slot once: ran (one delivery each) while active, skipped (paused) while paused', async () => {
    const name = 'every-second-ledger';
    await create(http(name, { kind: 'interval', everyMs: 1000 }));
    await oracle.waitFor('three deliveries', () => hitsOf(name).length >= 3, 15_000);
    expect((await api.call('POST', `/routines/${name}/pause`, { as: 'operator' })).status).toBe(200);
    const pausedAt = Date.now();
    await settle();
    expect((await api.call('POST', `/routines/${name}/resume`, { as: 'operator' })).status).toBe(200);
    const resumedAt = Date.now();
    await oracle.waitFor('two deliveries after resuming', () => deliveredAfter(name, resumedAt).length >= 2, 10_000);
    await new Promise((r) => setTimeout(r, 1_500)); // the last delivered slots' runs reach their final status

    const slotsOf = (ms: number) => hitsOf(name).filter((h) => Date.parse(h.scheduledFor) === ms).length;
    const first = Math.min(...hitsOf(name).map((h) => Date.parse(h.scheduledFor)));
    const last = Math.max(...hitsOf(name).map((h) => Date.parse(h.scheduledFor)));
    const range = `from=${new Date(first - 1).toISOString()}&to=${new Date(last).toISOString()}`;
    const res = await api.call('GET', `/routines/${name}/slots?${range}`, { as: 'viewer' });
    expect(res.status).toBe(200);
    const items = res.body.items as { slot: string; fate: string; reason?: string; runs: { id: string }[] }[];
    // Every slot of the range, once, one second apart: none missing, none doubled.
    expect(items.map((i) => Date.parse(i.slot))).toEqual(
      Array.from({ length: (last - first) / 1000 + 1 }, (_, k) => first + k * 1000),
    );
    for (const i of items) {
      const at = Date.parse(i.slot);
      // What the ledger says ran reached the receiver exactly once; what it says skipped never did.
      expect([i.slot, i.fate, slotsOf(at)]).toEqual([i.slot, slotsOf(at) === 1 ? 'ran' : 'skipped', slotsOf(at)]);
      if (i.fate === 'ran') expect(i.runs).toHaveLength(1);
      else expect([i.slot, i.reason, at > pausedAt - 1000 && at <= resumedAt + 1000]).toEqual([i.slot, 'paused', true]);
    }
    expect(items.filter((i) => i.fate === 'skipped').length).toBeGreaterThanOrEqual(2);
    expect(res.body.counts).toMatchObject({ 'no-record': 0, due: 0 });

    const wide = expectProblem(
      await api.call(
        'GET',
        `/routines/${name}/slots?${range}`.replace(/to=.*$/, `to=${new Date(last + 7_200_000).toISOString()}`),
        {
          as: 'viewer',
        },
      ),
      400,
    );
    expect(wide.errors).toEqual([{ path: 'query.from', message: expect.stringContaining('the limit is 1000') }]);
    expectProblem(await api.call('GET', '/routines/nope/slots', { as: 'viewer' }), 404);

    // The same ledger from the CLI, as the built binary: one table row per slot.
    const viewer = droverAs(api, 'viewer');
    const [fromArg, toArg] = [new Date(first - 1).toISOString(), new Date(last).toISOString()];
    const table = await viewer(['routines', 'slots', name, '--from', fromArg, '--to', toArg]);
    expect([table.code, table.stderr]).toEqual([0, '']);
    const rows = table.stdout.split('\n').filter((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/.test(l));
    expect(rows).toHaveLength(items.length);
    rows.forEach((row, k) => {
      const i = items[k]!;
      expect(row).toMatch(new RegExp(`^${i.slot.slice(0, 19).replace('T', ' ')} UTC\\s+${i.fate}\\b`));
      if (i.fate === 'ran') expect(row).toContain(i.runs[0]!.id);
      else expect(row).toContain('paused');
    });
    const json = await viewer(['routines', 'slots', name, '--from', fromArg, '--to', toArg, '-o', 'json']);
    expect(JSON.parse(json.stdout).items).toEqual(items);
    const wideCli = await viewer(['routines', 'slots', name, '--from', fromArg, '--to', '2h']);
    expect(wideCli.code).not.toBe(0);
    expect(wideCli.stderr).toContain('the limit is 1000');
    await api.call('DELETE', `/routines/${name}`, { as: 'operator' });
  }, 60_000);
});
