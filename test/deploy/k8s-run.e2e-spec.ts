import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { startPrometheus, waitFor, waitForTargetsUp, type PrometheusHandle } from '@drover/testing';
import { APPS, ROOT, appDeployment, render, type App, type K8sObject, type Workload } from './support/k8s';
import { KubeletContainer, type Termination } from './support/kubelet';

/**
 * The rendered dev overlay, run: its Redis pod (the init container rendering the Redis users, then
 * redis-server loading them) and its scheduler, worker and api containers started on this machine
 * as the kubelet would start them (support/kubelet.ts says what stands in for the image, the volumes
 * and the pod network), each app as its own Redis user; probed with their own probes; scraped by a real
 * Prometheus configured from the ServiceMonitor; loaded through the api with a real token from the
 * Secret it mounts; and the prod overlay's KEDA query asked of that Prometheus. Then each pod is
 * terminated as the kubelet does it and must exit 0 inside its grace period.
 */
const dev = render('dev');
const prod = render('prod');

interface ScaledObject {
  metadata: { namespace: string };
  spec: { triggers: { metadata: { query: string; threshold: string } }[] };
}
interface ServiceMonitor {
  metadata: { name: string; namespace: string };
  spec: { endpoints: { port: string; path: string }[] };
}
const scaledObject = prod.find((o) => o.kind === 'ScaledObject') as unknown as ScaledObject;
const QUERY = scaledObject.spec.triggers[0]!.metadata.query;
const monitor = dev.find((o) => o.kind === 'ServiceMonitor') as unknown as ServiceMonitor;

/** The policy's `default` queue, as the pods read it from the drover-policy ConfigMap. */
const CONCURRENCY = 5;
const TOKEN = `k8s-${randomBytes(16).toString('hex')}`;
/** What `node scripts/redis-acl.mjs --new-passwords > drover-redis.env` writes, as `kubectl create secret
 * generic drover-redis-users --from-env-file=drover-redis.env` stores it. */
function redisUsers(): Record<string, string> {
  const res = spawnSync(process.execPath, [join(ROOT, 'scripts', 'redis-acl.mjs'), '--new-passwords'], {
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(res.stderr);
  return Object.fromEntries(
    res.stdout
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}
/** The Secrets the operator creates (docs/deploy.md). */
const SECRETS = {
  'drover-api-tokens': {
    'tokens.yaml': stringify({
      tokens: [{ name: 'k8s-e2e', role: 'operator', sha256: createHash('sha256').update(TOKEN).digest('hex') }],
    }),
  },
  'drover-redis-users': redisUsers(),
};
const PASSWORD = (role: string) => SECRETS['drover-redis-users'][`DROVER_REDIS_${role.toUpperCase()}_PASSWORD`]!;
const redisSet = dev.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'redis') as Workload;

/** The Redis pod, as the kubelet starts it; redis-server takes its port and address from flags. */
const startRedisPod = (secrets: Record<string, Record<string, string>>) =>
  KubeletContainer.start(redisSet, {
    podName: `redis-0-${randomBytes(3).toString('hex')}`,
    objects: dev,
    dns: {},
    secrets,
    network: (hostPort) => ({
      args: ['--port', String(hostPort('redis')), '--bind', '127.0.0.1'],
      probeArgs: ['-p', String(hostPort('redis'))],
    }),
  });

describe('the dev overlay’s containers run as the kubelet would run them', () => {
  let redis: KubeletContainer;
  let prom: PrometheusHandle;
  const pods = new Map<App, KubeletContainer>();
  const pod = (app: App) => pods.get(app)!;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${pod('api').hostPort('http')}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as Record<string, unknown> };
  };
  const value = async (expr: string) => {
    const result = await prom.query(expr);
    return result.length === 1 ? Number(result[0]!.value[1]) : undefined;
  };

  /** A client of the Redis pod as `user` (none: the default user). */
  const redisAs = (user?: 'scheduler' | 'worker' | 'api' | 'producer') =>
    new Redis({
      port: redis.hostPort('redis'),
      host: '127.0.0.1',
      ...(user && { username: user, password: PASSWORD(user) }),
      lazyConnect: true,
      enableReadyCheck: false, // INFO: the default user may only PING
      maxRetriesPerRequest: 0,
    });

  beforeAll(async () => {
    redis = await startRedisPod(SECRETS);
    await redis.waitFor('startupProbe');
    await redis.waitFor('readinessProbe');
    const objects: K8sObject[] = dev;
    for (const app of APPS) {
      pods.set(
        app,
        await KubeletContainer.start(appDeployment(objects, app), {
          podName: `drover-${app}-7d9f8b6c5-${randomBytes(3).toString('hex')}`,
          objects,
          // The Service `redis` in the pod's namespace, i.e. this test's redis-server.
          dns: { 'redis:6379': `127.0.0.1:${redis.hostPort('redis')}` },
          secrets: SECRETS,
        }),
      );
    }
  }, 30_000);

  afterAll(async () => {
    await Promise.all([...pods.values()].map((p) => p.cleanup()));
    await prom?.stop();
    await redis?.cleanup();
  }, 30_000);

  it('each container passes its startup probe, then readiness and liveness, on the manifest’s paths and ports', async () => {
    const started = await Promise.all(APPS.map((app) => pod(app).waitFor('startupProbe')));
    await Promise.all(APPS.map((app) => pod(app).waitFor('readinessProbe')));
    for (const app of APPS) {
      expect({ app, live: (await pod(app).probe('livenessProbe')).ok }).toEqual({ app, live: true });
    }
    // The process logs JSON (LOG_FORMAT) under its pod's name (DROVER_INSTANCE_ID from metadata.name).
    for (const app of APPS) {
      const line = pod(app)
        .output()
        .split('\n')
        .find((l) => l.startsWith('{'));
      expect({ app, instance: line && (JSON.parse(line) as { instance?: string }).instance }).toEqual({
        app,
        instance: pod(app).podName,
      });
    }
    console.log(`startup probe passed after ${started.map((ms, i) => `${APPS[i]} ${ms} ms`).join(', ')}`);
  }, 60_000);

  it('Prometheus, configured from the ServiceMonitor, scrapes every pod, and one scheduler leads', async () => {
    const endpoint = monitor.spec.endpoints[0]!;
    // The labels prometheus-operator gives a ServiceMonitor's targets (job = the Service's name), with the
    // namespace of the ScaledObject whose query runs below; scraped every second instead of every 15 s.
    prom = await startPrometheus({
      config: {
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        scrape_configs: [
          {
            job_name: `serviceMonitor/${monitor.metadata.namespace}/${monitor.metadata.name}/0`,
            metrics_path: endpoint.path,
            static_configs: APPS.map((app) => ({
              targets: [`127.0.0.1:${pod(app).hostPort(endpoint.port)}`],
              labels: {
                job: `drover-${app}`,
                service: `drover-${app}`,
                namespace: scaledObject.metadata.namespace,
                endpoint: endpoint.port,
                container: pod(app).container.name,
              },
            })),
          },
        ],
      },
    });
    await waitForTargetsUp(prom, APPS.length);
    await waitFor(
      'the scheduler to lead and export the queue gauges',
      async () =>
        (await value('sum(drover_leader)')) === 1 &&
        (await value(`max(drover_queue_concurrency{queue="default"})`)) === CONCURRENCY,
      { timeoutMs: 20_000, intervalMs: 250 },
    );
  }, 40_000);

  it('the ScaledObject’s query returns the enqueued runs ÷ concurrency, waiting or running', async () => {
    // Held on a paused queue: 12 runs of three priorities, none running.
    expect((await api('POST', '/queues/default/pause')).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await api('POST', '/jobs', {
        jobType: 'sleep',
        payload: { ms: 120_000 },
        priority: (['high', 'medium', 'low'] as const)[i % 3],
      });
      expect(res.status).toBe(201);
      ids.push(res.body.runId as string);
    }
    const expected = 12 / CONCURRENCY;
    await waitFor('the backlog per pod to reach Prometheus', async () => (await value(QUERY)) === expected, {
      timeoutMs: 15_000,
      intervalMs: 250,
    });
    // Every Drover run carries a BullMQ priority, so the runs wait in the sorted set, not the wait list:
    // the list KEDA's redis scalers measure (LLEN) reads 0 with 12 runs waiting.
    const client = redisAs('api');
    try {
      expect(await client.llen('drover:default:wait')).toBe(0);
      expect(await client.zcard('drover:default:prioritized')).toBe(12);
    } finally {
      client.disconnect();
    }
    expect(await value('sum(drover_queue_jobs{state="prioritized"})')).toBe(12);

    // Released: the worker takes `concurrency` runs; running ones still count, so the value holds.
    expect((await api('POST', '/queues/default/resume')).status).toBe(200);
    await waitFor(
      'the worker to run 5 and the leader to count them',
      async () =>
        (await value('sum(drover_worker_active_jobs)')) === CONCURRENCY &&
        (await value('sum(drover_queue_jobs{state="active"})')) === CONCURRENCY,
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(await value(QUERY)).toBe(expected);

    // Canceled (queued ones removed, running ones aborted), the backlog is gone and so is the demand.
    for (const id of ids) expect([200, 202]).toContain((await api('POST', `/runs/${id}/cancel`)).status);
    await waitFor('the backlog to drain to 0', async () => (await value(QUERY)) === 0, {
      timeoutMs: 15_000,
      intervalMs: 250,
    });
  }, 60_000);

  it('Redis loads the rendered users: hashes only, no admin; the default user may only PING, as its probes do', async () => {
    const file = readFileSync(join(redis.dir, 'volumes', 'acl', 'users.acl'), 'utf8');
    expect(file.match(/^user \S+/gm)).toEqual([
      'user default',
      'user scheduler',
      'user worker',
      'user api',
      'user producer',
    ]);
    for (const [name, password] of Object.entries(SECRETS['drover-redis-users'])) {
      expect({ name, leaked: file.includes(password) }).toEqual({ name, leaked: false });
    }
    expect(file).toContain(`#${createHash('sha256').update(PASSWORD('worker')).digest('hex')} `);
    expect(await redis.probe('readinessProbe')).toMatchObject({ ok: true, output: 'PONG\n' });
    expect((await redis.probe('livenessProbe')).ok).toBe(true);
    const anonymous = redisAs();
    const worker = redisAs('worker');
    try {
      await expect(anonymous.get('drover:default:meta')).rejects.toThrow(/NOPERM/);
      // Each password is its own user's alone.
      await expect(anonymous.auth('worker', PASSWORD('api'))).rejects.toThrow(/WRONGPASS/);
      // A worker's password reads its queues, not the console sessions.
      expect(await worker.hget('drover:default:meta', 'version')).toEqual(expect.any(String));
      await expect(worker.get('drover:{core}:session:x')).rejects.toThrow(/NOPERM/);
      await expect(worker.config('GET', 'maxmemory')).rejects.toThrow(/NOPERM/);
    } finally {
      anonymous.disconnect();
      worker.disconnect();
    }
    // Nothing the apps did above was refused.
    for (const app of APPS) expect({ app, refused: /NOPERM/.test(pod(app).output()) }).toEqual({ app, refused: false });
  });

  it('the Redis pod does not start without every password: its init container refuses an empty one', async () => {
    const secrets = {
      ...SECRETS,
      'drover-redis-users': { ...SECRETS['drover-redis-users'], DROVER_REDIS_WORKER_PASSWORD: '' },
    };
    await expect(startRedisPod(secrets)).rejects.toThrow(
      /init container acl exited 2:\s*drover-redis-users: a password is empty/,
    );
  });

  it('each pod, terminated as the kubelet does it, exits 0 within its grace period', async () => {
    const ended = new Map<App, Termination>();
    await Promise.all(APPS.map(async (app) => ended.set(app, await pod(app).terminate())));
    for (const app of APPS) {
      const t = ended.get(app)!;
      const graceMs = pod(app).pod.terminationGracePeriodSeconds! * 1000;
      expect({ app, exit: t.exit, killed: t.killed }).toEqual({ app, exit: 0, killed: false });
      expect(t.elapsedMs).toBeLessThan(graceMs);
    }
    // Then Redis (it saves its data on SIGTERM).
    const r = await redis.terminate();
    expect({ exit: r.exit, killed: r.killed }).toEqual({ exit: 0, killed: false });
    expect(r.elapsedMs).toBeLessThan(redis.pod.terminationGracePeriodSeconds! * 1000);
    console.log(
      `terminated in ${APPS.map((a) => `${a} ${ended.get(a)!.elapsedMs} ms`).join(', ')}, redis ${r.elapsedMs} ms`,
    );
  }, 60_000);
});
