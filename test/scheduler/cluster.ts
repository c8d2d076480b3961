import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseEnv } from '@drover/config';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues, QueueRegistry, RunStore, type RunView } from '@drover/store';
import { startApp, testRedisUrl, uniquePrefix, waitFor, type AppProcess } from '@drover/testing';

/** A private cluster for one e2e test: a key prefix, a policy file, and the processes started. */
export class TestCluster {
  readonly prefix = uniquePrefix('e2e');
  readonly processes: AppProcess[] = [];
  readonly configFile: string;

  constructor(
    policy: unknown,
    private readonly extraEnv: Record<string, string> = {},
  ) {
    this.configFile = join(mkdtempSync(join(tmpdir(), 'drover-e2e-')), 'drover.yaml');
    writeFileSync(this.configFile, stringify(policy));
  }

  env(name: string): Record<string, string> {
    return {
      REDIS_URL: testRedisUrl(),
      DROVER_PREFIX: this.prefix,
      DROVER_CONFIG: this.configFile,
      DROVER_INSTANCE_ID: name,
      DROVER_SHUTDOWN_GRACE_MS: '5000',
      ...this.extraEnv,
    };
  }

  async start(
    app: 'scheduler' | 'worker' | 'api' | 'standalone',
    name: string,
    env: Record<string, string> = {},
  ): Promise<AppProcess> {
    const p = await startApp(app, { env: { ...this.env(name), ...env } });
    this.processes.push(p);
    return p;
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

  private store?: { conns: RedisConnections; runs: RunStore; bull: BullQueues };

  /** The run store of this cluster's prefix, read through a connection of the test's own. */
  runs(): RunStore {
    if (!this.store) {
      // The Redis the cluster's processes use (the shared test server unless extraEnv names another).
      const conns = new RedisConnections(parseEnv(this.env('e2e-test')).redis, 'e2e-test');
      const keys = new DroverKeys(this.prefix, false);
      const bull = new BullQueues(conns, keys);
      const runs = new RunStore(conns, keys, new QueueRegistry(conns.command, keys, bull), { bull });
      this.store = { conns, runs, bull };
    }
    return this.store.runs;
  }

  async run(id: string): Promise<RunView | null> {
    return this.runs().get(id);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop('SIGKILL')));
    if (this.store) {
      await this.store.runs.close();
      await this.store.bull.closeAll();
      await this.store.conns.closeAll();
    }
  }
}

/** Every slot of a 1-second grid in [from, to], as ISO strings (what X-Drover-Scheduled-For carries). */
export function secondSlots(from: number, to: number): string[] {
  const out: string[] = [];
  for (let t = Math.ceil(from / 1000) * 1000; t <= to; t += 1000) out.push(new Date(t).toISOString());
  return out;
}
