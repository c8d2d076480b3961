import { runIdForSlot } from '@drover/core';
import type { RunView } from '@drover/store';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { TestCluster } from './cluster';

const POLICIES = ['skip', 'last', 'all'] as const;
/** The routines' misfire grace: a slot later than this when dispatched is "missed". */
const MISFIRE_GRACE_MS = 2000;

describe('catch-up after all schedulers were down', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster({
      queues: [{ name: 'default', concurrency: 20 }],
      routines: POLICIES.map((policy) => ({
        name: `catch-${policy}`,
        jobType: 'http.request',
        queue: 'default',
        trigger: { kind: 'interval', everyMs: 1000 },
        catchUpPolicy: policy,
        misfireGraceMs: MISFIRE_GRACE_MS,
        payload: { url: `${oracle.url}/hit`, method: 'POST' },
      })),
    });
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it('records or runs each missed slot exactly as the routine policy promises', async () => {
    await cluster.start('worker', 'worker-1');
    const first = await cluster.start('scheduler', 'sched-1');
    await oracle.waitFor(
      '3 s of runs',
      (h) => POLICIES.every((p) => h.filter((x) => x.routine === `catch-${p}`).length >= 3),
      20_000,
    );
    expect(await first.stop('SIGTERM')).toBe(0);
    const stoppedAt = Date.now();
    await new Promise((r) => setTimeout(r, 6000)); // the downtime itself, not a wait for a condition
    const restartedAt = Date.now();
    await cluster.start('scheduler', 'sched-2');
    await oracle.waitFor(
      'runs after the restart',
      (h) => h.filter((x) => x.receivedAt > restartedAt + 3000).length >= 6,
      20_000,
    );

    for (const policy of POLICIES) {
      const routine = `catch-${policy}`;
      const hits = oracle.hits.filter((h) => h.routine === routine);
      const beforeStop = hits.filter((h) => h.receivedAt <= stoppedAt).map((h) => Date.parse(h.scheduledFor));
      const lastBefore = Math.max(...beforeStop);
      // Every slot from the last one fired before the stop to well after the restart.
      const slots: number[] = [];
      for (let t = lastBefore + 1000; t <= restartedAt + 2000; t += 1000) slots.push(t);
      const runs = await Promise.all(
        slots.map((t) =>
          waitFor(`run of ${routine}@${t}`, () => cluster.run(runIdForSlot(routine, t)).then((r) => r ?? undefined), {
            timeoutMs: 10_000,
          }),
        ),
      );
      const view = (r: RunView) => ({ status: r.status, source: r.source, reason: r.reason });
      const missed = runs.filter(
        (r) => r.source === 'catch-up' || /catch-up|superseded|capped/.test(view(r).reason ?? ''),
      );
      const ran = new Set(hits.map((h) => Date.parse(h.scheduledFor)));

      // None missing: each slot has exactly one run record, and ran at most once.
      expect(runs.map((r) => r.id)).toEqual(slots.map((t) => runIdForSlot(routine, t)));
      for (const t of slots) expect(hits.filter((h) => Date.parse(h.scheduledFor) === t).length).toBeLessThanOrEqual(1);
      // The gap was long enough for some slots to count as missed (more than MISFIRE_GRACE_MS late).
      expect(restartedAt - stoppedAt).toBeGreaterThan(MISFIRE_GRACE_MS);
      expect(missed.length).toBeGreaterThan(0);

      if (policy === 'skip') {
        expect(missed.every((r) => r.status === 'skipped' && view(r).reason === 'catch-up-skip')).toBe(true);
        expect(missed.some((r) => ran.has(r.scheduledFor!))).toBe(false);
      }
      if (policy === 'last') {
        // The first dispatch after the restart finds the newest slots on time (within the grace):
        // they run, and every missed slot is superseded by them (docs/core.md; a run for the newest
        // missed slot happens only when no slot is on time, see the dispatcher's int tests).
        expect(missed.every((r) => r.status === 'skipped' && view(r).reason === 'superseded')).toBe(true);
        expect(missed.some((r) => ran.has(r.scheduledFor!))).toBe(false);
      }
      if (policy === 'all') {
        expect(missed.every((r) => r.source === 'catch-up' && r.status !== 'skipped')).toBe(true);
        for (const r of missed) expect(ran.has(r.scheduledFor!)).toBe(true);
        expect(runs.filter((r) => r.status === 'skipped')).toEqual([]);
      }
    }
  }, 90_000);
});
