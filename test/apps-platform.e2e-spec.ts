import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, testRedisUrl, uniquePrefix, type AppProcess } from '@drover/testing';

const APPS = ['scheduler', 'worker', 'api', 'standalone'] as const;
const ROOT = join(__dirname, '..');

/** Runs an app to completion and returns its exit code and output (for start-up failures). */
function runToExit(app: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', app, 'main.js')], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe.each(APPS)('the %s app', (name) => {
  let app: AppProcess;

  beforeAll(async () => {
    app = await startApp(name, { env: { REDIS_URL: testRedisUrl(), DROVER_PREFIX: uniquePrefix(name) } });
  });

  afterAll(async () => {
    await app.stop('SIGKILL');
  });

  it('answers /healthz and /readyz', async () => {
    const health = await fetch(`${app.baseUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-powered-by')).toBeNull();
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    const ready = await fetch(`${app.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', details: { redis: { status: 'up' } } });
  });

  it('serves Prometheus text with Node defaults and Drover metrics', async () => {
    const res = await fetch(`${app.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await res.text();
    expect(body).toMatch(/^# TYPE process_cpu_user_seconds_total counter$/m);
    expect(body).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
    expect(body).toMatch(/^# TYPE drover_runs_total counter$/m);
  });

  it('exits 0 on SIGTERM after a graceful shutdown', async () => {
    const code = await app.stop('SIGTERM');
    expect(code).toBe(0);
    expect(app.output()).toMatch(/shutdown complete/);
  });
});

describe('start-up configuration errors', () => {
  it('REDIS_URL=nonsense exits 2 with one line naming the variable', async () => {
    const { code, output } = await runToExit('standalone', { REDIS_URL: 'nonsense' });
    expect(code).toBe(2);
    expect(output.trim()).toBe(
      'drover standalone: invalid configuration: REDIS_URL: "nonsense" is not a URL (e.g. rediss://user:password@127.0.0.1:6380/0)',
    );
  });

  it('a DROVER_CONFIG with a broken cron exits 2 naming the routine', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-e2e-'));
    const file = join(dir, 'drover.yaml');
    writeFileSync(
      file,
      'routines:\n  - name: nightly-backup\n    jobType: noop\n    queue: default\n    trigger: { kind: cron, cron: "0 25 * * *" }\nqueues:\n  - name: default\n',
    );
    const { code, output } = await runToExit('scheduler', { REDIS_URL: testRedisUrl(), DROVER_CONFIG: file });
    expect(code).toBe(2);
    expect(output).toMatch(
      /^drover scheduler: invalid configuration: DROVER_CONFIG .*routines\[nightly-backup\]\.trigger\.cron/,
    );
  });

  it("a DROVER_CONFIG with a routine over core's limits exits 2 naming the field", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'drover-e2e-')), 'drover.yaml');
    const tz = 'Europe/Berlin'.padEnd(65, '/');
    writeFileSync(
      file,
      `routines:\n  - { name: zoned, jobType: noop, queue: default, trigger: { kind: cron, cron: "0 2 * * *", tz: "${tz}" } }\n` +
        'queues:\n  - name: default\n',
    );
    const { code, output } = await runToExit('scheduler', { REDIS_URL: testRedisUrl(), DROVER_CONFIG: file });
    expect(code).toBe(2);
    expect(output).toMatch(
      /^drover scheduler: invalid configuration: DROVER_CONFIG .*routines\[zoned\]\.trigger\.tz: has 65 characters; the limit is 64/,
    );
  });

  it('a DROVER_API_TOKENS_FILE with a bad hash exits 2 naming the variable and the field', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'drover-e2e-')), 'tokens.yaml');
    writeFileSync(file, 'tokens:\n  - { name: ci, role: operator, sha256: not-a-hash }\n');
    const { code, output } = await runToExit('api', { REDIS_URL: testRedisUrl(), DROVER_API_TOKENS_FILE: file });
    expect(code).toBe(2);
    expect(output.trim()).toMatch(
      /^drover api: invalid configuration: DROVER_API_TOKENS_FILE: .*tokens\.yaml: tokens\.0\.sha256 must be the 64 hex digits/,
    );
  });

  it('an invalid PORT exits 2 naming PORT', async () => {
    const { code, output } = await runToExit('worker', { PORT: 'http' });
    expect(code).toBe(2);
    expect(output).toMatch(/PORT: "http" is not a whole number/);
  });

  it('a PORT another process holds exits 1 with a line naming PORT, and no stack', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const { code, output } = await runToExit('worker', {
        REDIS_URL: testRedisUrl(),
        DROVER_PREFIX: uniquePrefix('port'),
        PORT: String(port),
      });
      expect(code).toBe(1);
      expect(output).toContain(`PORT=${port} is taken by another process: stop it or set PORT to a free port`);
      expect(output).not.toMatch(/^\s+at /m);
    } finally {
      holder.close();
    }
  });
});

describe('readiness without Redis', () => {
  it('stays alive but not ready while Redis is unreachable', async () => {
    const app = await startApp('api', { env: { REDIS_URL: 'redis://127.0.0.1:1' }, waitReady: false });
    try {
      await app.waitForLog(/listening on/);
      expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${app.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'error', error: { redis: { status: 'down' } } });
    } finally {
      // Nothing is in flight, so nothing should wait for Redis: not the presence entry's removal
      // (it expires by itself), not the client's retries.
      const stopping = process.hrtime.bigint();
      expect(await app.stop('SIGTERM')).toBe(0);
      expect(Number(process.hrtime.bigint() - stopping) / 1e6).toBeLessThan(3_000);
    }
  }, 30_000);
});
