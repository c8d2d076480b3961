import type { QueueInput } from '@drover/core';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues, QueueRegistry, RunStore, WorkerCatalog, type NewRun } from '@drover/store';
import { startApp, testRedisUrl, uniquePrefix, type AppProcess } from '@drover/testing';

/** The producer side of a test cluster: queue policies in Redis and a RunStore, like the scheduler/api have. */
export interface TestCluster {
  prefix: string;
  keys: DroverKeys;
  connections: RedisConnections;
  bull: BullQueues;
  runs: RunStore;
  registry: QueueRegistry;
  catalog: WorkerCatalog;
  workers: AppProcess[];
  /** Starts `dist/apps/worker/main.js` on this cluster's prefix; waits until /readyz (consuming) answers 200. */
  startWorker(instanceId: string, env?: Record<string, string>): Promise<AppProcess>;
  close(): Promise<void>;
}

export async function testCluster(label: string, queues: QueueInput[]): Promise<TestCluster> {
  const prefix = uniquePrefix(label);
  const connections = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'e2e');
  const keys = new DroverKeys(prefix, false);
  const bull = new BullQueues(connections, keys);
  const registry = new QueueRegistry(connections.command, keys, bull);
  await registry.put(queues);
  const runs = new RunStore(connections, keys, registry, { bull });
  const workers: AppProcess[] = [];
  return {
    prefix,
    keys,
    connections,
    bull,
    runs,
    registry,
    catalog: new WorkerCatalog(connections.command, keys),
    workers,
    startWorker: async (instanceId, env = {}) => {
      const app = await startApp('worker', {
        env: {
          REDIS_URL: testRedisUrl(),
          DROVER_PREFIX: prefix,
          DROVER_INSTANCE_ID: instanceId,
          LOG_LEVEL: 'info',
          ...env,
        },
        readyTimeoutMs: 30_000,
      });
      workers.push(app);
      return app;
    },
    close: async () => {
      await Promise.all(workers.map((w) => w.stop('SIGKILL')));
      await runs.close();
      await bull.closeAll();
      await connections.closeAll();
    },
  };
}

/** An `http.request` run calling the oracle. */
export function httpRun(id: string, queue: string, url: string, over: Partial<NewRun> = {}): NewRun {
  return {
    id,
    routine: null,
    jobType: 'http.request',
    queue,
    source: 'api',
    scheduledFor: null,
    payload: { url, method: 'POST', body: { id } },
    ...over,
  };
}

/** One sample of a Prometheus text exposition, e.g. `drover_runs_total{queue="q",job_type="x",status="parked"}`. */
export async function scrape(app: AppProcess, sample: RegExp): Promise<number> {
  const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const values = text
    .split('\n')
    .filter((line) => sample.test(line))
    .map((line) => Number(line.split(' ').pop()));
  return values.reduce((a, b) => a + b, 0);
}
