import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
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
      // The banner names the process it checked, and NestJS's boot chatter stays out of the log.
      expect(qs.output()).toContain(`Drover is up: the standalone app (pid `);
      expect(qs.output()).toContain(`answers on port ${port}, and its /readyz says`);
      expect(qs.output()).not.toMatch(/InstanceLoader|RoutesResolver|RouterExplorer|NestFactory/);

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

  /** Another server on `port` (or on any free port) answering /healthz 200, as any web app might. */
  async function impostor(port = 0): Promise<{ server: Server; port: number }> {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', info: { process: { status: 'up', pid: 1 } } }));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return { server, port: (server.address() as { port: number }).port };
  }

  it('with the PORT it was given taken, stops before any work with one line naming PORT', async () => {
    const other = await impostor();
    try {
      const qs = quickstart({ DROVER_HOME: mkdtempSync(join(tmpdir(), 'drover-home-')), PORT: String(other.port) });
      expect(await qs.exited).toBe(1);
      expect(qs.output().trim()).toMatch(
        new RegExp(
          `^drover: PORT=${other.port} is taken by another process: stop it, or start on a free port: PORT=\\d+ npm start$`,
        ),
      );
    } finally {
      other.server.close();
    }
  });

  it('with port 3000 taken and no PORT set, starts on a free port and says which', async () => {
    // Hold 3000 unless something on this machine already does: either way it is taken.
    const held = await impostor(3000).catch(() => undefined);
    const home = mkdtempSync(join(tmpdir(), 'drover-home-'));
    const qs = quickstart({ DROVER_HOME: home });
    try {
      await waitFor('the port note', () => /using PORT=(\d+)/.exec(qs.output())?.[1], { timeoutMs: 10_000 });
      const port = Number(/using PORT=(\d+)/.exec(qs.output())![1]);
      expect(port).not.toBe(3000);
      expect(qs.output()).toContain(`drover: port 3000 is taken by another process: using PORT=${port}`);
      await waitFor('ready banner', () => /Drover is up/.test(qs.output()), { timeoutMs: 60_000 });
      expect(qs.output()).toContain(`answers on port ${port}`);
      expect(qs.output()).toContain(`npx drover --api-url http://127.0.0.1:${port} status`);
      expect(qs.output()).not.toContain('EADDRINUSE');
      qs.child.kill('SIGINT');
      expect(await qs.exited).toBe(0);
    } finally {
      if (qs.child.exitCode === null) qs.child.kill('SIGKILL');
      held?.server.close();
    }
  });

  it('REDIS_URL=nonsense fails with a message naming the variable', async () => {
    const qs = quickstart({ REDIS_URL: 'nonsense', PORT: String(await freePort()) });
    expect(await qs.exited).toBe(2);
    expect(qs.output()).toContain('REDIS_URL: "nonsense" is not a URL');
  });
});
