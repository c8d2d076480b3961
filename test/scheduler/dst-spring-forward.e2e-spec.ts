import { runIdForSlot } from '@drover/core';
import {
  fakeRedisTimeEnv,
  fakeTimeEnv,
  startHttpOracle,
  startRedisServer,
  type HttpOracle,
  type RedisServerHandle,
} from '@drover/testing';
import { TestCluster } from './cluster';

/** Europe/Berlin springs forward here: 02:00 CET becomes 03:00 CEST (01:00 UTC). */
const TRANSITION = Date.parse('2026-03-29T01:00:00Z');
/** How long before the transition the faked clocks start: enough for the apps to boot and elect a leader. */
const LEAD_IN_S = 20;

/**
 * A real spring-forward, crossed by real processes whose clocks libfaketime puts shortly before
 * it: Redis (so the cluster clock), the scheduler and the worker, all by the same offset. Two cron
 * routines that are NOT armed ahead (`forbid`: their fires decide them): `30 2 * * *`, whose wall
 * time does not exist that night, and `* 2 * * *`, every minute of the skipped hour. The DST
 * policy (docs/core.md) fires each once, at the transition itself — by the fire of its Job
 * Scheduler, not by a watchdog repair (cron-parser alone would fire the first at 03:30).
 */
describe('a cron routine not armed ahead across the spring-forward of Europe/Berlin', () => {
  let oracle: HttpOracle;
  let redis: RedisServerHandle;
  let cluster: TestCluster;
  let offsetS = 0;

  // Starts a redis-server of its own: its clock is the cluster's.
  beforeAll(async () => {
    offsetS = Math.round((TRANSITION - Date.now()) / 1000) - LEAD_IN_S;
    const faked = fakeTimeEnv(offsetS);
    oracle = await startHttpOracle();
    redis = await startRedisServer({ env: fakeRedisTimeEnv(offsetS) });
    cluster = new TestCluster(
      {
        queues: [{ name: 'default' }],
        routines: [
          ['dst-half-past-two', '30 2 * * *'],
          ['dst-skipped-hour', '* 2 * * *'],
        ].map(([name, cron]) => ({
          name,
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'cron', cron, tz: 'Europe/Berlin' },
          concurrencyPolicy: 'forbid',
          payload: { url: `${oracle.url}/hit`, method: 'POST' },
        })),
      },
      { ...faked, REDIS_URL: redis.url },
      'dst',
    );
  }, 30_000);

  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
    await oracle?.close();
  });

  it('runs the skipped slots once each, at the transition, with no watchdog repair', async () => {
    const scheduler = await cluster.start('scheduler', 'sched-1');
    await cluster.start('worker', 'worker-1');
    // The receiver's clock is the true one: the faked clocks are the same offset from it.
    const fakeNow = async () => Number((await cluster.connections.command.time())[0]) * 1000;
    expect(await fakeNow()).toBeLessThan(TRANSITION);
    await oracle.waitFor('both routines delivered', (h) => new Set(h.map((x) => x.routine)).size === 2, 40_000);
    // A few seconds more: long enough for a second delivery, a later fire or the watchdog (3 s tolerance).
    const until = TRANSITION + 8_000;
    while ((await fakeNow()) < until) await new Promise((r) => setTimeout(r, 500));

    const slot = new Date(TRANSITION).toISOString();
    const seen = oracle.hits.map((h) => `${h.routine} ${h.scheduledFor}`).sort();
    expect(seen).toEqual([`dst-half-past-two ${slot}`, `dst-skipped-hour ${slot}`]);
    // Received at the transition (on the faked clock), not at 03:30 nor a watchdog tolerance later.
    for (const h of oracle.hits) {
      const at = h.receivedAt + offsetS * 1000;
      expect(at).toBeGreaterThanOrEqual(TRANSITION);
      expect(at).toBeLessThan(TRANSITION + 2_500);
    }
    for (const name of ['dst-half-past-two', 'dst-skipped-hour']) {
      expect(await cluster.run(runIdForSlot(name, TRANSITION))).toMatchObject({
        source: 'schedule',
        status: 'succeeded',
        scheduledFor: TRANSITION,
      });
    }
    const metrics = await (await fetch(`${scheduler.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^drover_watchdog_repairs_total(\{[^}]*\})? 0$/m);
    expect(scheduler.output()).not.toMatch(/watchdog: routine is overdue/);
  }, 90_000);
});
