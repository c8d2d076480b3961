import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { waitFor } from '@drover/testing';

export const ROOT = join(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'image-fileset.mjs');

/** What scripts/image-fileset.mjs --json reports: the final stage's files and how the image runs. */
export interface Fileset {
  stage: string;
  rootfs: string;
  workdir: string;
  entrypoint: string[];
  cmd: string[];
  env: Record<string, string>;
  user: string;
  expose: string[];
  labels: Record<string, string>;
  skipped: { stage: string; line: number; command: string }[];
  cache: { hits: number; misses: number };
  sizes: { total: number; files: number; nodeModules: number; dist: number };
  seconds: number;
}

/** Replays `dockerfile` into `out`; the script's exit code and stderr when it refuses. */
export function replay(
  out: string,
  dockerfile = join(ROOT, 'docker', 'Dockerfile'),
): { ok: true; fileset: Fileset } | { ok: false; status: number | null; stderr: string } {
  const res = spawnSync(process.execPath, [SCRIPT, '--out', out, '--dockerfile', dockerfile, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 280_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (res.status !== 0) return { ok: false, status: res.status, stderr: `${res.stderr}${res.error?.message ?? ''}` };
  return { ok: true, fileset: JSON.parse(res.stdout.trim().split('\n').pop()!) as Fileset };
}

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export interface Container {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  exited: Promise<number | NodeJS.Signals>;
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals>;
}

/** The image's PATH (node's official images): `node` in ENTRYPOINT is found through it. */
const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** cwd, env and user of a process in the container (see runContainer). */
function containerSpawnOptions(fs: Fileset, env: Record<string, string>): SpawnOptions {
  const [uid, gid] = fs.user.split(':').map(Number);
  const opts: SpawnOptions = {
    cwd: join(fs.rootfs, fs.workdir),
    env: {
      PATH: `${dirname(process.execPath)}:${IMAGE_PATH}`,
      HOME: '/nonexistent',
      ...fs.env,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  };
  if (process.getuid?.() === 0) Object.assign(opts, { uid, gid: gid ?? uid });
  return opts;
}

/** `docker exec <container> <argv…>` (how Docker runs a CMD healthcheck): no entrypoint, the same env and user. */
export function execInContainer(
  fs: Fileset,
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const [program, ...args] = argv;
  const child: ChildProcess = spawn(program!, args, containerSpawnOptions(fs, env));
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

/**
 * `docker run <image> [args…]` on this machine: ENTRYPOINT + (args, or CMD when none), cwd = the
 * WORKDIR inside the file set, the image's ENV plus `env`, and the image's numeric USER when this
 * process may switch to it (root, as in CI). The entrypoint's programs are the host's: tini from
 * Debian's package at the same path as in the image, and this node (same major as the image's,
 * which the test checks) first on PATH.
 */
export function runContainer(fs: Fileset, args: string[] | undefined, env: Record<string, string>): Container {
  const [program, ...argv] = [...fs.entrypoint, ...(args ?? fs.cmd)];
  if (!program || !existsSync(program)) {
    throw new Error(`${program} (the image's init) is missing here: apt-get install tini (.ci/run does)`);
  }
  const child: ChildProcess = spawn(program, argv, containerSpawnOptions(fs, env));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    baseUrl: `http://127.0.0.1:${env.PORT}`,
    output: () => out,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (!done) child.kill(signal);
      return exited;
    },
  };
}

/** Waits until the container answers /readyz with 200; fails at once, with its output, if it exits. */
export async function waitReady(c: Container, name: string, timeoutMs = 30_000): Promise<void> {
  let done = false;
  const ready = waitFor(`${name} /readyz`, async () => (await fetch(`${c.baseUrl}/readyz`)).status === 200, {
    timeoutMs,
    intervalMs: 100,
  });
  const died = c.exited.then((code) => {
    if (!done) throw new Error(`${name} exited (${code}) before it was ready`);
  });
  try {
    await Promise.race([ready, died]);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${name} output:\n${c.output().slice(-3000)}`, { cause: err });
  } finally {
    done = true;
    // The loser of the race must not reject unobserved.
    ready.catch(() => undefined);
  }
}
