/**
 * `drover` as users run it: the CLI package packed (`scripts/pack.mjs cli`) and installed globally
 * into a temporary prefix (`npm install --global --prefix`), its `bin/drover` spawned the way a
 * shell spawns it, against a local api (+ scheduler and worker) on the bench's Redis, with a
 * profile file holding the api's URL and an admin token, as an operator's machine has.
 *
 * Every documented read command and a few safe writes run once per round, in alternating order
 * after a warm-up round; each is timed from spawn to exit (wall clock). The table prints the
 * median and p95 per command against the 300 ms budget, and the ratio to the baseline: what no
 * CLI can go below, a bare `node -e` process making one HTTP request to the same api (node:http,
 * `GET /api/v1/queues` with the token), run three times a round between the commands.
 * Env: REDIS_URL, BENCH_ROUNDS (10, at least 5).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startApp, uniquePrefix, waitFor, type AppProcess } from '@drover/testing';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROUNDS = Math.max(5, Number(process.env.BENCH_ROUNDS ?? 10));
const BUDGET_MS = 300;
const ROOT = join(__dirname, '..', '..');
const BASELINE = 'baseline: node -e + one HTTP GET';

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function sh(cmd: string, args: string[], cwd: string): string {
  const res = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${res.status}):\n${res.stdout}${res.stderr}`);
  return res.stdout;
}

/** Packs the CLI package and installs it globally into `work/global`; returns its `drover`. */
function installCli(work: string): string {
  const tarball = sh(
    process.execPath,
    [join(ROOT, 'scripts', 'pack.mjs'), '--out', join(work, 'packages'), 'cli'],
    ROOT,
  )
    .trim()
    .split('\n')
    .pop()!;
  const prefix = join(work, 'global');
  sh('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball], work);
  return join(prefix, 'bin', 'drover');
}

interface Cluster {
  api: AppProcess;
  others: AppProcess[];
  token: string;
}

async function startCluster(work: string): Promise<Cluster> {
  const token = `bench-${randomBytes(16).toString('hex')}`;
  const tokensFile = join(work, 'tokens.yaml');
  const sha256 = createHash('sha256').update(token).digest('hex');
  writeFileSync(tokensFile, stringify({ tokens: [{ name: 'bench', role: 'admin', sha256 }] }));
  const config = join(work, 'drover.yaml');
  writeFileSync(
    config,
    stringify({
      queues: [{ name: 'default', concurrency: 5, maxAttempts: 3 }],
      routines: [
        { name: 'heartbeat', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 2000 } },
        { name: 'nightly', jobType: 'noop', queue: 'default', trigger: { kind: 'cron', cron: '0 3 * * *' } },
        { name: 'on-demand', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } },
      ],
    }),
  );
  const env = { REDIS_URL, DROVER_PREFIX: uniquePrefix('bench-cli'), DROVER_CONFIG: config, LOG_LEVEL: 'warn' };
  const [api, scheduler, worker] = await Promise.all([
    startApp('api', {
      env: { ...env, DROVER_INSTANCE_ID: 'bench-api', DROVER_API_TOKENS_FILE: tokensFile, DROVER_API_RATE_LIMIT: '0' },
    }),
    startApp('scheduler', { env: { ...env, DROVER_INSTANCE_ID: 'bench-scheduler' } }),
    startApp('worker', { env: { ...env, DROVER_INSTANCE_ID: 'bench-worker' } }),
  ]);
  return { api: api!, others: [scheduler!, worker!], token };
}

/** One timed process: wall ms from spawn to exit; fails the bench on a non-zero exit. */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${stdout}${stderr}`));
      else resolve({ ms, stdout });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Nearest rank: with 10 rounds, the slowest. */
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(0.95 * xs.length) - 1]!;

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const work = mkdtempSync(join(tmpdir(), 'drover-bench-cli-'));
  const drover = installCli(work);
  const cluster = await startCluster(work);
  try {
    const { api, token } = cluster;
    const home = join(work, 'home');
    mkdirSync(home);
    const profile = join(work, 'cli.yaml');
    writeFileSync(profile, stringify({ current: 'local', profiles: { local: { url: api.baseUrl, token } } }));
    const env = { PATH: process.env.PATH ?? '', HOME: home, DROVER_CLI_CONFIG: profile };
    const cli = (args: string[]) => timed(drover, args, env);

    await waitFor('the api to see the policy and the worker', async () => {
      const { stdout } = await cli(['-o', 'json', 'queues', 'get', 'default']);
      return (JSON.parse(stdout) as { workers: unknown[] }).workers.length > 0;
    });
    const { stdout } = await cli(['-o', 'json', 'enqueue', 'noop', '--wait']);
    const runId = (JSON.parse(stdout.trim().split('\n').pop()!) as { data: { id: string } }).data.id;

    const get = `require('http').get(${JSON.stringify(`${api.baseUrl}/api/v1/queues`)}, { headers: { authorization: ${JSON.stringify(`Bearer ${token}`)} } }, (r) => { r.resume(); r.on('end', () => process.exit(r.statusCode === 200 ? 0 : 1)); })`;
    const baseline = () => timed(process.execPath, ['-e', get], env);
    const commands: string[][] = [
      ['--version'],
      ['--help'],
      ['status'],
      ['routines', 'ls'],
      ['routines', 'get', 'heartbeat'],
      ['-o', 'yaml', 'routines', 'get', 'heartbeat'],
      ['routines', 'preview', 'nightly'],
      ['routines', 'history', 'heartbeat'],
      ['routines', 'stats', 'heartbeat'],
      ['routines', 'slots', 'heartbeat'],
      ['runs', 'ls'],
      ['-o', 'json', 'runs', 'ls'],
      ['runs', 'get', runId],
      ['runs', 'watch', runId],
      ['queues', 'ls'],
      ['queues', 'get', 'default'],
      ['parked', 'ls'],
      ['workers'],
      ['plan'],
      ['audit'],
      ['validate', join(work, 'drover.yaml')],
      ['preview', '0 9 * * 1-5', '--tz', 'Europe/Paris'],
      ['completion', 'bash'],
      // Safe writes: a no-op run, a pause taken back, a manual routine run.
      ['enqueue', 'noop'],
      ['routines', 'pause', 'nightly'],
      ['routines', 'resume', 'nightly'],
      ['routines', 'trigger', 'on-demand'],
    ];
    const label = (args: string[]) =>
      `drover ${args.map((a) => (a === runId ? '<run>' : a.startsWith(work) ? '<file>' : a)).join(' ')}`;
    const times = new Map<string, number[]>([
      [BASELINE, []],
      ...commands.map((c) => [label(c), []] as [string, number[]]),
    ]);

    const round = async (order: string[][], record: boolean) => {
      const third = Math.ceil(order.length / 3);
      for (let i = 0; i < order.length; i++) {
        if (i % third === 0) {
          const b = await baseline();
          if (record) times.get(BASELINE)!.push(b.ms);
        }
        const r = await cli(order[i]!);
        if (record) times.get(label(order[i]!))!.push(r.ms);
      }
    };
    await round(commands, false);
    for (let i = 0; i < ROUNDS; i++) {
      await round(i % 2 === 0 ? commands : [...commands].reverse(), true);
      console.log(`round ${i + 1}/${ROUNDS} done (load ${load()})`);
    }

    const base = median(times.get(BASELINE)!);
    const width = Math.max(...[...times.keys()].map((k) => k.length));
    console.log(`\n${ROUNDS} rounds, wall ms from spawn to exit, the installed bin (${drover.replace(work, '<tmp>')})`);
    console.log(`${'command'.padEnd(width)}  median     p95   ratio  budget ${BUDGET_MS} ms (p95)`);
    let over = 0;
    for (const [name, xs] of times) {
      const [m, p] = [median(xs), p95(xs)];
      const verdict = name === BASELINE ? '' : p <= BUDGET_MS ? 'pass' : 'FAIL';
      if (verdict === 'FAIL') over++;
      console.log(
        `${name.padEnd(width)}  ${m.toFixed(0).padStart(6)}  ${p.toFixed(0).padStart(6)}  ${(m / base).toFixed(2).padStart(6)}  ${verdict}`,
      );
    }
    console.log(`\n${commands.length - over}/${commands.length} commands within ${BUDGET_MS} ms at p95`);
  } finally {
    await Promise.all([cluster.api, ...cluster.others].map((p) => p.stop('SIGTERM')));
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`load average at end: ${load()}`);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
