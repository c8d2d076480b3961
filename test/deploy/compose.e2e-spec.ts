/**
 * docker/compose.yaml's Drover services, run as the stack would run them, without Docker: each
 * service's command and environment, started from the image's file set (scripts/image-fileset.mjs),
 * with its bind mounts read from their host paths and REDIS_URL pointed at this run's Redis. Then
 * each service's healthcheck runs as Docker runs it (exec in the container), the api is called
 * from outside with the admin token tokens-init made (its script run as a process, its volume a temp
 * dir), and SIGTERM drains each within its stop_grace_period.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { type Service, appOf, appServices, bindMounts, defaultPort, loadCompose, runTokensInit } from './compose-file';
import { type Container, type Fileset, execInContainer, replay, runContainer, waitReady } from './image-fileset';

const compose = loadCompose();
let fs: Fileset;
let dir: string;
const running: Container[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'drover-compose-image-'));
  const res = replay(dir);
  if (!res.ok) throw new Error(`image-fileset failed (${res.status}):\n${res.stderr}`);
  fs = res.fileset;
}, 300_000);

afterAll(async () => {
  await Promise.all(running.map((c) => c.stop('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The service's environment on this machine: mounted paths → their host files (the api-tokens
 * volume → `tokensDir`), our Redis, a free port.
 */
function hostEnv(svc: Service, port: number, prefix: string, tokensDir: string): Record<string, string> {
  const mounts = bindMounts(svc);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.environment ?? {})) {
    env[k] = mounts.find((m) => m.target === v)?.source ?? v.replace(/^\/etc\/drover\/tokens\//, `${tokensDir}/`);
  }
  expect(env.REDIS_URL).toMatch(/^redis:\/\/(scheduler|worker|api):\$\{DROVER_REDIS_[A-Z]+_PASSWORD\}@redis:6379$/);
  return { ...env, REDIS_URL: testRedisUrl(), DROVER_PREFIX: prefix, PORT: String(port) };
}

/** The healthcheck's command, aimed at the port the process listens on here instead of its default. */
function healthcheck(svc: Service, port: number): string[] {
  const [kind, ...argv] = svc.healthcheck!.test;
  expect(kind).toBe('CMD');
  const from = `127.0.0.1:${defaultPort(appOf(svc)!)}/`;
  return argv.map((a) => a.replace(from, `127.0.0.1:${port}/`));
}

describe('the compose stack, run from the image file set', () => {
  it('starts scheduler, worker and api with their compose command and env; healthchecks pass; the api takes the token tokens-init made; SIGTERM drains', async () => {
    const prefix = uniquePrefix('compose');
    // tokens-init runs first (the api depends on its completion) and prints the admin token.
    const tokensDir = join(dir, 'api-tokens');
    mkdirSync(tokensDir);
    const init = runTokensInit(tokensDir, compose.services['tokens-init']!.command);
    expect(init.code).toBe(0);
    // One of each app (the second scheduler and worker differ only by instance id and replica).
    const names = ['scheduler-1', 'worker', 'api'];
    const services = await Promise.all(
      names.map(async (name) => {
        const svc = compose.services[name]!;
        const port = await freePort();
        const env = hostEnv(svc, port, prefix, tokensDir);
        const c = runContainer(fs, svc.command, env);
        running.push(c);
        return { name, svc, port, env, c };
      }),
    );
    for (const s of services) await waitReady(s.c, s.name);

    // Docker's healthcheck: the test command exec'd in the container, exit 0 = healthy.
    for (const s of services) {
      const res = await execInContainer(fs, healthcheck(s.svc, s.port), s.env);
      expect([s.name, res.code, res.output]).toEqual([s.name, 0, '']);
    }
    // …and it reports unhealthy when nothing answers.
    const dead = await execInContainer(fs, healthcheck(services[0]!.svc, await freePort()), services[0]!.env);
    expect(dead.code).toBe(1);

    // From outside the container (dev mode would answer loopback only): the tokens file decides.
    const api = services.find((s) => s.name === 'api')!.c;
    const trigger = `${api.baseUrl}/api/v1/routines/report-on-demand/trigger`;
    expect((await fetch(trigger, { method: 'POST' })).status).toBe(401);
    const auth = { Authorization: `Bearer ${init.token!}` };
    await waitFor('the leader to apply DROVER_CONFIG', () => /applied DROVER_CONFIG/.test(services[0]!.c.output()), {
      timeoutMs: 20_000,
    });
    const res = await fetch(trigger, { method: 'POST', headers: auth });
    expect(res.status).toBe(201);
    const { runId } = (await res.json()) as { runId: string };
    await waitFor(
      'the triggered run to succeed',
      async () => {
        const r = (await (await fetch(`${api.baseUrl}/api/v1/runs/${runId}`, { headers: auth })).json()) as {
          status: string;
        };
        return r.status === 'succeeded';
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );

    // `docker compose stop`: SIGTERM, then SIGKILL after stop_grace_period. Each exits 0 well before.
    const results = await Promise.all(
      services.map(async (s) => {
        const graceMs = Number(/^(\d+)s$/.exec(s.svc.stop_grace_period!)![1]) * 1000;
        const t0 = Date.now();
        const code = await s.c.stop('SIGTERM');
        return [s.name, code, Date.now() - t0 < graceMs];
      }),
    );
    expect(results).toEqual(names.map((n) => [n, 0, true]));
  }, 90_000);
});

it('compose runs every app of the image', () => {
  expect(new Set(appServices(compose).map(([, s]) => appOf(s)))).toEqual(new Set(['scheduler', 'worker', 'api']));
});
