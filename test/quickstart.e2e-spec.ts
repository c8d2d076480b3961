import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@drover/testing';

const ROOT = join(__dirname, '..');

function quickstart(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'quickstart.mjs')], {
    cwd: ROOT,
    // The build already ran (npm test builds first); REDIS_URL is deliberately not inherited.
    env: { PATH: process.env.PATH ?? '', QUICKSTART_SKIP_BUILD: '1', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start (the quick start)', () => {
  it('brings up the standalone app on an embedded Redis and Ctrl-C leaves nothing behind', async () => {
    const home = mkdtempSync(join(tmpdir(), 'drover-home-'));
    const port = await freePort();
    const qs = quickstart({ DROVER_HOME: home, PORT: String(port) });
    try {
      await waitFor('quick start /healthz', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toContain('process_cpu_user_seconds_total');
      const redisPid = Number(readFileSync(join(home, 'redis.pid'), 'utf8'));
      expect(alive(redisPid)).toBe(true);
      await waitFor('ready banner', () => /Drover is up/.test(qs.output()), { timeoutMs: 10_000 });

      // The banner's one curl: trigger the manual demo routine through the api role, then see it run.
      const api = `http://127.0.0.1:${port}/api/v1`;
      const trigger = await fetch(`${api}/routines/report-on-demand/trigger`, { method: 'POST' });
      expect(trigger.status).toBe(201);
      const { runId } = (await trigger.json()) as { runId: string };
      const run = await waitFor(
        'the triggered run to succeed',
        async () => {
          const r = (await (await fetch(`${api}/runs/${runId}`)).json()) as { status: string; source: string };
          return r.status === 'succeeded' ? r : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );
      expect(run).toMatchObject({ source: 'manual' });

      qs.child.kill('SIGINT');
      expect(await qs.exited).toBe(0);
      await waitFor('embedded redis-server to exit', () => !alive(redisPid), { timeoutMs: 5_000 });
      expect(existsSync(join(home, 'redis.pid'))).toBe(false);
    } finally {
      if (qs.child.exitCode === null) qs.child.kill('SIGKILL');
    }
  });

  it('REDIS_URL=nonsense fails with a message naming the variable', async () => {
    const qs = quickstart({ REDIS_URL: 'nonsense', PORT: String(await freePort()) });
    expect(await qs.exited).toBe(2);
    expect(qs.output()).toContain('REDIS_URL: "nonsense" is not a URL');
  });
});
