import { spawn } from 'node:child_process';
import { startApp, type AppProcess } from '@drover/testing';
import { type TestCluster } from '../../scheduler/cluster';

/** The queues of the demo policy; both have a global ceiling so the ceiling panels have a line. */
export const DEMO_QUEUES = ['default', 'slow'] as const;

/**
 * A small load that exercises every outcome a dashboard shows, with the built-in handlers only:
 * successes (noop, sleep, an HTTP call the oracle answers 200), an HTTP call the oracle answers
 * 500 (one retry after a fixed 200 ms, then parked), and a `forbid` routine whose 2.5 s run makes
 * it skip the next fires. Every routine fires every second, so rate() has data within seconds.
 */
export function demoPolicy(oracleUrl: string) {
  const backoff = { type: 'fixed', delayMs: 200 };
  const every = { kind: 'interval', everyMs: 1000 };
  return {
    queues: [
      { name: 'default', concurrency: 4, globalConcurrency: 8, maxAttempts: 2, backoff },
      { name: 'slow', concurrency: 2, globalConcurrency: 2, maxAttempts: 2, backoff },
    ],
    routines: [
      { name: 'tick', jobType: 'noop', queue: 'default', trigger: every },
      {
        name: 'ping',
        jobType: 'http.request',
        queue: 'default',
        trigger: every,
        payload: { url: `${oracleUrl}/ping`, method: 'GET' },
      },
      {
        name: 'broken-hook',
        jobType: 'http.request',
        queue: 'default',
        trigger: every,
        payload: { url: `${oracleUrl}/hook?status=500`, method: 'POST', body: { demo: true } },
      },
      { name: 'nap', jobType: 'sleep', queue: 'slow', trigger: every, payload: { ms: 150 } },
      {
        name: 'long-report',
        jobType: 'sleep',
        queue: 'slow',
        trigger: every,
        payload: { ms: 2500 },
        concurrencyPolicy: 'forbid',
      },
    ],
  };
}

/** Starts an app on the cluster's prefix and policy, with a start-up bound that allows for a busy machine. */
export async function startIn(
  cluster: TestCluster,
  app: 'scheduler' | 'worker' | 'api' | 'standalone',
  name: string,
): Promise<AppProcess> {
  const p = await startApp(app, { env: cluster.env(name), readyTimeoutMs: 40_000 });
  cluster.processes.push(p);
  return p;
}

export async function metricsText(app: AppProcess): Promise<string> {
  const res = await fetch(`${app.baseUrl}/metrics`);
  if (res.status !== 200) throw new Error(`${app.name} /metrics answered ${res.status}`);
  return res.text();
}

/** Sum of the samples whose line starts with `selector`, e.g. `drover_runs_total{queue="default"`. */
export function sampleSum(text: string, selector: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(selector))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * Pipes a Prometheus text exposition through `promtool check metrics` (PROMTOOL_BIN overrides the
 * binary). promtool prints one line per problem and exits non-zero on any; `output` is stdout and
 * stderr together.
 */
export function promtoolCheckMetrics(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.PROMTOOL_BIN ?? 'promtool', ['check', 'metrics'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

/**
 * Management API calls every 250 ms so the API panels and series have data: answers 200 (the
 * OpenAPI document, the audit log as a development-mode admin) and 404 (an unknown route). Stops
 * on `stop()` or by itself after `maxMs`.
 */
export function apiTraffic(app: AppProcess, maxMs = 180_000): { stop(): void } {
  const paths = ['/api/v1/openapi.json', '/api/v1/audit', '/api/v1/no-such-route'];
  let i = 0;
  const timer = setInterval(() => {
    const path = paths[i++ % paths.length]!;
    fetch(`${app.baseUrl}${path}`)
      .then((res) => res.arrayBuffer())
      .catch(() => undefined); // the api may be stopping; a missed call only thins the data
  }, 250);
  const deadline = setTimeout(() => clearInterval(timer), maxMs);
  return {
    stop: () => {
      clearInterval(timer);
      clearTimeout(deadline);
    },
  };
}
