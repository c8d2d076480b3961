import { Redis } from 'ioredis';
import { DroverClient, DroverError, RedisOutOfMemoryError } from '@drover/client';
import { SystemClock } from '@drover/redis';
import { startHttpOracle, startRedisServer, waitFor, type HttpOracle, type RedisServerHandle } from '@drover/testing';
import { ApiCluster, expectProblem } from '../api/support/api-cluster';
import { runIdForSlot } from '@drover/core';
import { deliveredTwice, MISFIRE_GRACE_MS, missingSlots, watchExits } from './support/fault-oracle';

/** How long Redis stays full: twice the routine's misfire grace, so catch-up decides its older slots. */
const FULL_MS = 8_000;

/**
 * Writes 4 MiB of ballast, then sets `maxmemory` 2 MiB below what Redis uses: Redis refuses every
 * write (noeviction) and stays over its limit however much the apps' expiring keys free meanwhile.
 */
async function fillMemory(admin: Redis): Promise<void> {
  const batch = admin.pipeline();
  for (let i = 0; i < 64; i++) batch.set(`oom-ballast:${i}`, 'x'.repeat(64 * 1024));
  await batch.exec();
  const used = Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))![1]);
  await admin.config('SET', 'maxmemory', String(used - 2 * 1024 * 1024));
}

/**
 * An api, a scheduler and a worker on a private redis-server whose memory is filled to its
 * `maxmemory` (policy noeviction) for a few seconds, then raised. What is asserted:
 * - a producer's enqueue and enqueueMany reject with RedisOutOfMemoryError (code `redis-out-of-memory`);
 * - `POST /jobs` over HTTP answers 503 problem+json with Retry-After and the code;
 * - no process exits, each stays ready and says Redis is full, and none logs more than a few lines a second;
 * - once memory returns: the run enqueued before (due while Redis is full), the run that was running
 *   when it filled (its completion may meet the full Redis) reach the receiver; every slot of the
 *   routine is delivered (late, within its misfire grace) or, older, recorded `skipped` by its
 *   catch-up policy, as after downtime; no slot twice. Counted at the receiver.
 */
describe('Redis at its memory limit', () => {
  let oracle: HttpOracle;
  let redis: RedisServerHandle;
  let admin: Redis;
  let api: ApiCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    redis = await startRedisServer({ extraArgs: ['--maxmemory-policy', 'noeviction'] });
    admin = new Redis(redis.url);
    api = await ApiCluster.start('oom', {
      env: { REDIS_URL: redis.url },
      policy: {
        queues: [{ name: 'default', concurrency: 5, maxAttempts: 3, backoff: { type: 'fixed', delayMs: 200 } }],
        routines: [
          {
            name: 'tick',
            jobType: 'http.request',
            queue: 'default',
            trigger: { kind: 'interval', everyMs: 1000 },
            payload: { url: `${oracle.url}/tick`, method: 'POST' },
            misfireGraceMs: MISFIRE_GRACE_MS,
            catchUpPolicy: 'skip',
          },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    admin?.disconnect();
    await redis?.stop();
    await oracle?.close();
  });

  it('refuses writes with a typed error and a 503, keeps every process up, and loses nothing acknowledged', async () => {
    const apps = [api.api, api.scheduler!, api.worker!];
    const exits = watchExits(apps);
    const client = new DroverClient(
      {
        runs: api.cluster.runs,
        routines: api.cluster.routines,
        registry: api.cluster.registry,
        clock: new SystemClock(),
      },
      { defaultQueue: 'default', name: 'oom-test', contracts: new Map(), strictJobTypes: false },
    );
    await oracle.waitFor('the routine firing', (hits) => hits.some((h) => h.routine === 'tick'), 20_000);

    // Acknowledged before Redis fills: one run due while it is full, one running when it fills.
    const delayed = await client.enqueue(
      'http.request',
      { url: `${oracle.url}/delayed`, method: 'POST' },
      { delayMs: 2_000 },
    );
    const running = await client.enqueue('http.request', { url: `${oracle.url}/running?delayMs=3000`, method: 'POST' });
    await oracle.waitFor('the long run to start', (hits) => hits.some((h) => h.path === '/running'), 10_000);

    const fullFrom = Date.now();
    const logLinesBefore = apps.map((p) => p.output().split('\n').length);
    await fillMemory(admin);

    const refused = await client.enqueue('noop', {}).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RedisOutOfMemoryError);
    expect(refused).toBeInstanceOf(DroverError);
    expect((refused as DroverError).code).toBe('redis-out-of-memory');
    const refusedMany = await client.enqueueMany([{ job: 'noop', payload: {} }]).catch((err: unknown) => err);
    expect((refusedMany as DroverError).code).toBe('redis-out-of-memory');
    // A keyed enqueue (its one guarded script call) is refused the same way.
    const refusedKeyed = await client.enqueue('noop', {}, { idempotencyKey: 'oom-keyed' }).catch((err: unknown) => err);
    expect(refusedKeyed).toBeInstanceOf(RedisOutOfMemoryError);

    const posted = await api.call('POST', '/jobs', { body: { jobType: 'noop', payload: {} } });
    expectProblem(posted, 503);
    expect(posted.body.code).toBe('redis-out-of-memory');
    expect(posted.headers.get('retry-after')).toBe('5');
    const paused = await api.call('POST', '/routines/tick/pause', { body: {} });
    expectProblem(paused, 503);

    const ready = await Promise.all(
      apps.map((p) => fetch(`${p.baseUrl}/readyz`).then(async (r) => [r.status, await r.text()])),
    );
    for (const [status, body] of ready)
      expect([status, body]).toEqual([200, expect.stringContaining('"memory":"full"')]);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, fullFrom + FULL_MS - Date.now())));
    const linesWhileFull = apps.map((p, i) => ({
      name: p.name,
      lines: p.output().split('\n').length - logLinesBefore[i]!,
    }));
    await admin.config('SET', 'maxmemory', '0');

    await oracle.waitFor(
      'the delayed run',
      (hits) => hits.some((h) => h.path === '/delayed' && h.runId === delayed),
      30_000,
    );
    await waitFor('the long run to succeed', async () => (await api.cluster.run(running))?.status === 'succeeded', {
      timeoutMs: 30_000,
    });
    const resumedAt = Date.now();
    await oracle.waitFor(
      'fires after memory returned',
      (hits) => hits.some((h) => h.routine === 'tick' && Date.parse(h.scheduledFor) > resumedAt + 1_000),
      20_000,
    );

    const ticks = oracle.hits.filter((h) => h.routine === 'tick');
    const missing = missingSlots(ticks, 'tick', fullFrom - 1_000, resumedAt);
    const records = await Promise.all(missing.map((s) => api.cluster.run(runIdForSlot('tick', Date.parse(s)))));
    expect({
      delayed: oracle.hits.filter((h) => h.path === '/delayed').length,
      exits: exits(),
      // Full for twice the grace: some slots were skipped (else this proves nothing about catch-up).
      someSkipped: records.length > 0,
      notSkipped: records.flatMap((r, i) =>
        r?.status === 'skipped' && r.reason === 'catch-up-skip' ? [] : [[missing[i], r]],
      ),
      twice: deliveredTwice(ticks),
      // A few lines each, not a line per refused fetch (BullMQ retries a refused fetch at once).
      chatty: linesWhileFull.filter((p) => p.lines > 20),
    }).toEqual({ delayed: 1, exits: [], someSkipped: true, notSkipped: [], twice: [], chatty: [] });
  }, 120_000);
});
