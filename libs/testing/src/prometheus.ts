import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

/**
 * A real `prometheus` server for tests: started on a free loopback port with its own temp dir,
 * probed over its HTTP API, always stopped by `stop()`. Needs the `prometheus` binary on PATH
 * (Debian package `prometheus`) or PROMETHEUS_BIN.
 */
export interface PrometheusHandle {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly dir: string;
  /** Instant query; rejects with Prometheus's error text when the expression is invalid. */
  query(expr: string): Promise<PromSample[]>;
  targets(): Promise<PromTarget[]>;
  ruleGroups(): Promise<PromRuleGroup[]>;
  labelValues(label: string, match: string): Promise<string[]>;
  /** SIGTERM, then SIGKILL if it has not exited within 5 s; removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface PromTarget {
  labels: Record<string, string>;
  scrapePool: string;
  scrapeUrl: string;
  health: 'up' | 'down' | 'unknown';
  lastError: string;
}

export interface PromRule {
  name: string;
  query: string;
  type: 'alerting' | 'recording';
  health: 'ok' | 'err' | 'unknown';
  lastError?: string;
  lastEvaluation: string;
  state?: string;
}

export interface PromRuleGroup {
  name: string;
  file: string;
  rules: PromRule[];
  lastEvaluation: string;
}

export interface StartPrometheusOptions {
  /** The prometheus.yml content as an object (rule_files should be absolute paths). */
  config: Record<string, unknown>;
  /** Bounds the wait for /-/ready. Default 20 s. */
  startTimeoutMs?: number;
}

interface ApiAnswer<T> {
  status: 'success' | 'error';
  data: T;
  error?: string;
  errorType?: string;
}

async function api<T>(base: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`);
  const body = (await res.json()) as ApiAnswer<T>;
  if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.errorType}: ${body.error}`);
  return body.data;
}

function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function launch(
  bin: string,
  dir: string,
  configFile: string,
  timeoutMs: number,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    bin,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-8_000);
  });
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  try {
    // An early exit (bad config, port taken) ends the wait at once instead of at the deadline.
    const outcome = await waitFor(
      `prometheus to be ready on ${url}`,
      async () => {
        if (spawnError || child.exitCode !== null || child.signalCode !== null) return 'exited';
        const res = await fetch(`${url}/-/ready`).catch(() => undefined);
        return res?.status === 200 ? 'ready' : undefined;
      },
      { timeoutMs, intervalMs: 100 },
    );
    if (outcome === 'exited') {
      throw new Error(
        spawnError
          ? `cannot start ${bin}: ${spawnError.message}`
          : `prometheus exited early (${child.exitCode ?? child.signalCode}): ${log}`,
      );
    }
  } catch (err) {
    await stopChild(child);
    throw Object.assign(err as Error, { prometheusLog: log });
  }
  return { child, url };
}

/** Starts prometheus with `config`; retries on another port if the first one was taken meanwhile. */
export async function startPrometheus(opts: StartPrometheusOptions): Promise<PrometheusHandle> {
  const bin = process.env.PROMETHEUS_BIN ?? 'prometheus';
  const dir = mkdtempSync(join(tmpdir(), 'drover-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, stringify(opts.config));
  let started: { child: ChildProcess; url: string } | undefined;
  for (let attempt = 1; !started; attempt++) {
    try {
      started = await launch(bin, dir, configFile, opts.startTimeoutMs ?? 20_000);
    } catch (err) {
      const log = (err as { prometheusLog?: string }).prometheusLog ?? '';
      if (attempt >= 3 || !/address already in use/.test(log)) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const { child, url } = started;
  let stopped: Promise<void> | undefined;
  return {
    url,
    dir,
    query: async (expr) => {
      const data = await api<{ resultType: string; result: PromSample[] }>(
        url,
        `/api/v1/query?query=${encodeURIComponent(expr)}`,
      );
      if (data.resultType !== 'vector') throw new Error(`expected a vector from ${expr}, got ${data.resultType}`);
      return data.result;
    },
    targets: async () => (await api<{ activeTargets: PromTarget[] }>(url, '/api/v1/targets')).activeTargets,
    ruleGroups: async () => (await api<{ groups: PromRuleGroup[] }>(url, '/api/v1/rules')).groups,
    labelValues: (label, match) =>
      api<string[]>(url, `/api/v1/label/${encodeURIComponent(label)}/values?match[]=${encodeURIComponent(match)}`),
    stop: () =>
      (stopped ??= stopChild(child).finally(() => {
        rmSync(dir, { recursive: true, force: true });
      })),
  };
}

/** Waits until every active target is scraped successfully (and at least `min` targets exist). */
export function waitForTargetsUp(prom: PrometheusHandle, min: number, timeoutMs = 20_000): Promise<PromTarget[]> {
  return waitFor(
    `${min} prometheus targets to be up`,
    async () => {
      const targets = await prom.targets();
      const down = targets.filter((t) => t.health !== 'up');
      if (down.length > 0) {
        throw new Error(`down: ${down.map((t) => `${t.scrapeUrl} ${t.lastError || t.health}`).join('; ')}`);
      }
      return targets.length >= min ? targets : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

/**
 * Serves Prometheus text format on 127.0.0.1 at `/metrics` of a free port. `onScrape` runs before
 * each answer, so a test can advance counters scrape by scrape and rate() gets data.
 */
export async function serveMetrics(
  expose: () => Promise<{ contentType: string; body: string }>,
  onScrape: () => void = () => undefined,
): Promise<{ target: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    onScrape();
    expose().then(
      ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    target: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
