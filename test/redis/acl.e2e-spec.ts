import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { DroverClient, DroverModule } from '@drover/client';
import {
  freePort,
  startHttpOracle,
  startRedisServer,
  waitFor,
  type AppProcess,
  type HttpOracle,
  type RedisServerHandle,
} from '@drover/testing';
import { TestCluster } from '../support/test-cluster';

const ROLES = ['scheduler', 'worker', 'api', 'producer'] as const;
type Role = (typeof ROLES)[number] | 'admin';

/** ACL LOG entries, as flat objects. */
async function aclLog(admin: Redis): Promise<Record<string, string>[]> {
  const raw = (await admin.call('ACL', 'LOG')) as unknown[][];
  return raw.map((entry) => {
    const o: Record<string, string> = {};
    for (let i = 0; i < entry.length; i += 2) o[String(entry[i])] = String(entry[i + 1]);
    return o;
  });
}

/**
 * Every app under its own Redis ACL user (scripts/redis-acl.mjs, docs/redis.md): the file the
 * script writes is loaded by a real redis-server (--aclfile), and scheduler, worker and api run as
 * their users, a producer (@drover/client) as its own. Then the worker's and the producer's
 * credentials try what a compromised handler would: mint a console session, rewrite the audit log
 * or a routine.
 */
describe('Redis ACL users per role', () => {
  const passwords = Object.fromEntries(
    (['admin', ...ROLES] as Role[]).map((r) => [r, randomBytes(16).toString('hex')]),
  ) as Record<Role, string>;
  const adminToken = `a-${randomBytes(16).toString('hex')}`;
  let port: number;
  let url: (role: Role) => string;
  let dir: string;
  let redis: RedisServerHandle;
  let oracle: HttpOracle;
  let cluster: TestCluster;
  let admin: Redis;
  let api: AppProcess;
  let producer: INestApplicationContext;
  let client: DroverClient;
  let parkedId: string;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    port = await freePort();
    url = (role) => `redis://${role}:${passwords[role]}@127.0.0.1:${port}`;
    const policy = {
      queues: [
        {
          name: 'default',
          concurrency: 4,
          globalConcurrency: 3,
          rateLimit: { max: 50, durationMs: 1000 },
          maxAttempts: 2,
          backoff: { type: 'fixed', delayMs: 300 },
          leaseMs: 5_000,
        },
      ],
      routines: [
        {
          name: 'tick',
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: 1000 },
          payload: { url: `${oracle.url}/tick`, method: 'POST' },
        },
        // Beyond the schedule horizon: the scheduler enters it in `schedules-later`.
        { name: 'leap-day', jobType: 'noop', queue: 'default', trigger: { kind: 'cron', cron: '0 0 29 2 *' } },
      ],
    };
    // The test's own stores (TestCluster) read and write as admin; each app gets its role's URL.
    cluster = new TestCluster(policy, { REDIS_URL: url('admin') }, 'acl');
    dir = mkdtempSync(join(tmpdir(), 'drover-acl-'));
    const aclFile = join(dir, 'users.acl');
    const env = Object.fromEntries(
      (['admin', ...ROLES] as Role[]).map((r) => [`DROVER_REDIS_${r.toUpperCase()}_PASSWORD`, passwords[r]]),
    );
    const gen = spawnSync(process.execPath, ['scripts/redis-acl.mjs', '--prefix', cluster.prefix, '--out', aclFile], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });
    expect(gen.stderr).toBe('');
    expect(gen.status).toBe(0);
    redis = await startRedisServer({ port, extraArgs: ['--aclfile', aclFile] });
    admin = new Redis(url('admin'));
    // The harness's own readiness probe asked INFO unauthenticated (refused: default may only PING).
    await admin.call('ACL', 'LOG', 'RESET');

    const tokensFile = join(dir, 'tokens.yaml');
    const sha256 = createHash('sha256').update(adminToken).digest('hex');
    writeFileSync(tokensFile, stringify({ tokens: [{ name: 'acl-admin', role: 'admin', sha256 }] }));
    [, , api] = await Promise.all([
      cluster.start('scheduler', 'acl-scheduler', { REDIS_URL: url('scheduler') }),
      cluster.startWorker('acl-worker', { REDIS_URL: url('worker') }),
      cluster.start('api', 'acl-api', {
        REDIS_URL: url('api'),
        DROVER_API_TOKENS_FILE: tokensFile,
        DROVER_API_RATE_LIMIT: '0',
      }),
    ]);

    @Module({
      imports: [DroverModule.forRoot({ redis: url('producer'), prefix: cluster.prefix, name: 'acl-producer' })],
    })
    class ProducerModule {}
    producer = await NestFactory.createApplicationContext(ProducerModule, { logger: false, abortOnError: false });
    client = producer.get(DroverClient);
  }, 120_000);

  afterAll(async () => {
    await producer?.close();
    await cluster?.stopAll();
    admin?.disconnect();
    await redis?.stop();
    await oracle?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  describe('each app works under its own user', () => {
    it('the scheduler fires the routine and the worker runs it end to end', async () => {
      await oracle.waitFor('a run of the routine', (hits) => hits.some((h) => h.routine === 'tick'), 20_000);
      await waitFor(
        'the far routine left for later',
        async () => (await admin.zscore(cluster.keys.schedulesLater(), 'leap-day')) !== null,
      );
    }, 30_000);

    it('the producer enqueues under its user; a failing run is retried after its backoff, then parked', async () => {
      const ok = await client.enqueue('http.request', { url: `${oracle.url}/enqueued`, method: 'POST' });
      expect(await client.waitForRun(ok, { timeoutMs: 20_000 })).toMatchObject({ status: 'succeeded' });

      const failing = await client.enqueue('http.request', { url: `${oracle.url}/fails?status=500`, method: 'POST' });
      const run = await client.waitForRun(failing, { timeoutMs: 20_000 }).catch((err: Error) => err);
      const attempts = oracle.hits.filter((h) => h.path === '/fails' && h.runId === failing);
      expect(attempts.map((h) => h.attempt)).toEqual([1, 2]);
      expect(attempts[1]!.receivedAt - attempts[0]!.receivedAt).toBeGreaterThanOrEqual(250);
      expect(await client.getRun(failing)).toMatchObject({ status: 'parked' });
      expect(run).toBeDefined();
      parkedId = failing;
      // A manual run of a routine, and reading it: the producer reads routines, never writes them.
      const manual = await client.trigger('tick');
      expect(await client.waitForRun(manual, { timeoutMs: 20_000 })).toMatchObject({ status: 'succeeded' });
      expect(await client.getRoutine('tick')).toMatchObject({ def: { jobType: 'http.request' } });
      // A batch: the producer writes it, the worker counts its run and enqueues its callback.
      const batch = await client.enqueueBatch([{ job: 'http.request', payload: { url: `${oracle.url}/batched` } }], {
        onComplete: { jobType: 'noop' },
      });
      await waitFor('the batch fired', async () => (await client.getBatch(batch))?.firedAt);
    }, 60_000);

    it('the api opens a console session with a token, triggers the routine and pauses the queue', async () => {
      const login = await fetch(`${api.baseUrl}/api/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-drover-csrf': '1' },
        body: JSON.stringify({ token: adminToken }),
      });
      expect(login.status).toBeLessThan(300);
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const me = await fetch(`${api.baseUrl}/api/v1/session`, { headers: { cookie } });
      expect(me.status).toBe(200);

      expect((await call('GET', '/cluster')).status).toBe(200);
      expect((await call('GET', `/runs/${parkedId}`)).status).toBe(200);
      const replay = await call('POST', `/queues/default/parked/${parkedId}/replay`, {});
      expect(replay.status).toBeLessThan(300);
      await oracle.waitFor('the replayed run', (hits) => hits.filter((h) => h.path === '/fails').length > 2, 10_000);
      const trigger = await call('POST', '/routines/tick/trigger', {});
      expect(trigger.status).toBeLessThan(300);
      const pause = await call('POST', '/queues/default/pause', {});
      expect(pause.status).toBeLessThan(300);
      await waitFor(
        'the queue to read paused',
        async () => ((await (await call('GET', '/queues/default')).json()) as { paused?: boolean }).paused === true,
        { timeoutMs: 10_000 },
      );
      expect((await call('GET', '/audit')).status).toBe(200);
      expect((await call('GET', '/routines/tick/runs')).status).toBe(200);
      // A selector routine's override, and its dry run: the api asks a scheduler over Redis.
      const selector = { provider: 'http.candidates', args: { url: `${oracle.url}/candidates` } };
      const metas = { name: 'metas', jobType: 'noop', queue: 'default', status: 'paused', selector };
      expect((await call('POST', '/routines', { ...metas, trigger: { kind: 'interval', everyMs: 1000 } })).status).toBe(
        201,
      );
      expect((await call('POST', '/routines/metas/overrides', { key: 'k' })).status).toBe(201);
      expect(await (await call('DELETE', '/routines/metas/overrides')).json()).toMatchObject({
        cleared: [expect.any(String)],
      });
      const ranked = await call('GET', '/routines/metas/candidates');
      expect([ranked.status, ((await ranked.json()) as { routine?: string }).routine]).toEqual([200, 'metas']);
    }, 30_000);

    it('no app was refused anything: Redis logged no ACL denial, every app is ready', async () => {
      expect(await aclLog(admin)).toEqual([]);
      for (const p of cluster.processes) {
        expect((await fetch(`${p.baseUrl}/readyz`)).status).toBe(200);
        expect(p.output()).not.toMatch(/NOPERM/);
      }
    });
  });

  describe.each(['worker', 'producer'] as const)("the %s's credentials", (role) => {
    let r: Redis;
    const core = () => `${cluster.prefix}:{core}`;
    const sessionKey = () => `${core()}:session:${'a'.repeat(64)}`;
    const forged = JSON.stringify({ name: 'x', role: 'admin', createdAt: 0, expiresAt: 9e15 });

    beforeAll(() => {
      r = new Redis(url(role));
    });
    afterAll(() => r?.disconnect());

    it('cannot mint a console session', async () => {
      await expect(r.set(sessionKey(), forged)).rejects.toThrow(/NOPERM/);
      await expect(r.get(sessionKey())).rejects.toThrow(/NOPERM/);
      // Not through a script either: declared or not, every key a script touches is checked.
      await expect(r.eval("return redis.call('SET', KEYS[1], ARGV[1])", 1, sessionKey(), forged)).rejects.toThrow(
        /NOPERM/,
      );
      await expect(r.eval(`return redis.call('SET', '${sessionKey()}', ARGV[1])`, 0, forged)).rejects.toThrow(
        /can't access|NOPERM/,
      );
      expect(await admin.exists(sessionKey())).toBe(0);
    });

    it('cannot edit or trim the audit log', async () => {
      await expect(r.xadd(`${core()}:audit`, '*', 'action', 'forged')).rejects.toThrow(/NOPERM/);
      await expect(r.xtrim(`${core()}:audit`, 'MAXLEN', 0)).rejects.toThrow(/NOPERM/);
      await expect(r.del(`${core()}:audit`)).rejects.toThrow(/NOPERM/);
      expect(await admin.xlen(`${core()}:audit`)).toBeGreaterThan(0);
    });

    it('cannot rewrite a routine definition, the leader lease or a queue policy', async () => {
      const before = await admin.hget(`${core()}:routines`, 'tick');
      await expect(r.hset(`${core()}:routines`, 'tick', '{}')).rejects.toThrow(/NOPERM/);
      await expect(r.hdel(`${core()}:routines`, 'tick')).rejects.toThrow(/NOPERM/);
      await expect(r.set(`${core()}:leader`, 'me|0|999')).rejects.toThrow(/NOPERM/);
      await expect(r.hset(`${core()}:queues`, 'default', '{}')).rejects.toThrow(/NOPERM/);
      expect(await admin.hget(`${core()}:routines`, 'tick')).toBe(before);
    });

    it('cannot administer the server: no CONFIG, FLUSHALL, KEYS, ACL or MONITOR', async () => {
      await expect(r.config('SET', 'maxmemory-policy', 'allkeys-lru')).rejects.toThrow(/NOPERM/);
      await expect(r.flushall()).rejects.toThrow(/NOPERM/);
      await expect(r.keys('*')).rejects.toThrow(/NOPERM/);
      await expect(r.call('ACL', 'SETUSER', role, '~*')).rejects.toThrow(/NOPERM/);
      await expect(r.call('ACL', 'LIST')).rejects.toThrow(/NOPERM/);
    });
  });

  it('the unauthenticated default user may only PING', async () => {
    const anon = new Redis({ host: '127.0.0.1', port });
    try {
      expect(await anon.ping()).toBe('PONG');
      await expect(anon.get(`${cluster.prefix}:{core}:leader`)).rejects.toThrow(/NOPERM/);
    } finally {
      anon.disconnect();
    }
  });
});
