import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

/** The repository root, whether this file runs from libs/ (ts) or dist/libs/ (built). */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'apps'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the repository root above ${__dirname}`);
    dir = up;
  }
  return dir;
}

const ROOT = repoRoot();

export interface AppProcess {
  name: string;
  port: number;
  pid: number;
  baseUrl: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | NodeJS.Signals>;
  /** Sends a signal and waits for exit. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals>;
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/**
 * Starts `node dist/apps/<name>/main.js` (run `npm run build` first), or `entry` (an app outside the
 * repository's apps, e.g. an example's build, run from its own directory), with the given env and a
 * free port; waits for `/readyz` unless `waitReady` is false.
 */
export async function startApp(
  name: string,
  opts: { env?: Record<string, string>; waitReady?: boolean; readyTimeoutMs?: number; entry?: string } = {},
): Promise<AppProcess> {
  const entry = opts.entry ?? join(ROOT, 'dist', 'apps', name, 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` before e2e tests`);
  const port = opts.env?.PORT ? Number(opts.env.PORT) : await freePort();
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: opts.entry ? dirname(entry) : ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...opts.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
    listeners.forEach((l) => l());
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  let done = false;
  void exited.then(() => (done = true));
  const app: AppProcess = {
    name,
    port,
    pid: child.pid!,
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (!done) child.kill(signal);
      return exited;
    },
    waitForLog: (pattern, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            cleanup();
            resolve(m[0]);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${name} did not log ${pattern} within ${timeoutMs} ms; output:\n${out.slice(-4000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
  if (opts.waitReady !== false) {
    try {
      await waitFor(
        `${name} /readyz`,
        async () => {
          if (done) throw new Error(`${name} exited: ${out.slice(-2000)}`);
          const res = await fetch(`${app.baseUrl}/readyz`);
          return res.status === 200;
        },
        { timeoutMs: opts.readyTimeoutMs ?? 20_000, intervalMs: 100 },
      );
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    }
  }
  return app;
}
