import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseEnv } from '@drover/config';
import type { QueueInput } from '@drover/core';
import type { RunView } from '@drover/store';
import { startApp, testRedisUrl, testStores, uniquePrefix, waitFor, type AppProcess } from '@drover/testing';

type App = 'scheduler' | 'worker' | 'api' | 'standalone';

/**
 * A private cluster for one e2e test: a key prefix of its own, the real app processes it starts
 * (`dist/apps/<app>/main.js`), and the stores of that prefix, read and written through the test's
 * own connections (as the api or a producer would). Either with a policy file every process is
 * given (`new TestCluster(policy)`), or with queue policies in Redis only
 * (`TestCluster.withQueues`), as an operator would make them through the API.
 */
export class TestCluster {
  readonly prefix: string;
  readonly processes: AppProcess[] = [];
  readonly configFile?: string;
  private store?: ReturnType<typeof testStores>;

  constructor(
    policy?: unknown,
    private readonly extraEnv: Record<string, string> = {},
    private readonly label = 'e2e',
  ) {
    this.prefix = uniquePrefix(label);
    if (policy) {
      this.configFile = join(mkdtempSync(join(tmpdir(), 'drover-e2e-')), 'drover.yaml');
      writeFileSync(this.configFile, stringify(policy));
    }
  }

  /** A cluster whose queue policies live in Redis only (no policy file). */
  static async withQueues(label: string, queues: QueueInput[], extraEnv: Record<string, string> = {}) {
    const cluster = new TestCluster(undefined, extraEnv, label);
    await cluster.registry.put(queues);
    return cluster;
  }

  /** The stores of this prefix, on the Redis the cluster's processes use (the test server unless extraEnv names another). */
  private get stores() {
    this.store ??= testStores(this.label, { prefix: this.prefix, redis: parseEnv(this.env('e2e-test')).redis });
    return this.store;
  }

  get keys() {
    return this.stores.keys;
  }
  get connections() {
    return this.stores.connections;
  }
  get bull() {
    return this.stores.bull;
  }
  get registry() {
    return this.stores.registry;
  }
  get runs() {
    return this.stores.runs;
  }
  get routines() {
    return this.stores.routines;
  }
  get catalog() {
    return this.stores.catalog;
  }

  env(name: string): Record<string, string> {
    return {
      REDIS_URL: testRedisUrl(),
      DROVER_PREFIX: this.prefix,
      // A policy-file cluster drains within 5 s (the scheduler tests stop processes often);
      // a queues-only one keeps the default grace the worker tests measure against.
      ...(this.configFile && { DROVER_CONFIG: this.configFile, DROVER_SHUTDOWN_GRACE_MS: '5000' }),
      DROVER_INSTANCE_ID: name,
      ...this.extraEnv,
    };
  }

  /** Starts an app of this cluster and waits until its /readyz answers 200. */
  async start(app: App, name: string, env: Record<string, string> = {}): Promise<AppProcess> {
    const p = await startApp(app, { env: { ...this.env(name), ...env }, readyTimeoutMs: 30_000 });
    this.processes.push(p);
    return p;
  }

  /** A worker: ready means consuming every queue it should. */
  startWorker(name: string, env: Record<string, string> = {}): Promise<AppProcess> {
    return this.start('worker', name, env);
  }

  /** The instance that reports `drover_leader 1` on its /metrics, if any. */
  async leader(candidates: AppProcess[]): Promise<AppProcess | undefined> {
    for (const p of candidates) {
      try {
        const text = await (await fetch(`${p.baseUrl}/metrics`)).text();
        if (/^drover_leader\{[^}]*\} 1$/m.test(text)) return p;
      } catch {
        /* dead or not listening */
      }
    }
    return undefined;
  }

  async waitForLeader(candidates: AppProcess[], timeoutMs = 15_000): Promise<AppProcess> {
    return waitFor('a scheduler to lead', () => this.leader(candidates), { timeoutMs, intervalMs: 50 });
  }

  async run(id: string): Promise<RunView | null> {
    return this.runs.get(id);
  }

  /** Kills every process it started and closes its connections. */
  async stopAll(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop('SIGKILL')));
    await this.store?.close();
  }

  close(): Promise<void> {
    return this.stopAll();
  }
}
