import { ApiCluster } from '../api/support/api-cluster';
import { droverAs } from './support/drover-cli';

/**
 * A keyed queue as `drover queues get|ls` shows it: the built binary against a real api with no
 * worker, so the runs enqueued stay where their key's limit put them (two holding the key's places,
 * the rest held back for one).
 */
describe('drover queues: per-key limit and busiest keys (real api)', () => {
  let api: ApiCluster;
  let viewer: ReturnType<typeof droverAs>;

  beforeAll(async () => {
    api = await ApiCluster.start('cli-keyed', {
      worker: false,
      policy: {
        queues: [
          { name: 'default', concurrency: 5 },
          { name: 'exports', concurrency: 4, concurrencyKey: { source: 'payload.tenant', limit: 2 } },
          { name: 'tenants', concurrency: 4, concurrencyKey: { source: 'option', limit: 1 } },
        ],
      },
    });
    viewer = droverAs(api, 'viewer');
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  }, 30_000);

  const enqueue = async (tenant: string) => {
    const res = await api.call('POST', '/jobs', {
      as: 'operator',
      body: { jobType: 'noop', queue: 'exports', payload: { tenant } },
    });
    expect(res.status).toBe(201);
  };

  it('shows the limit per key, and no keys while none has runs', async () => {
    const res = await viewer(['queues', 'get', 'exports']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^per key\s+2 at once \(key: payload\.tenant\)$/m);
    expect(res.stdout).toMatch(/^keys\s+none running or waiting$/m);
    const plain = await viewer(['queues', 'get', 'default']);
    expect(plain.stdout).not.toMatch(/^per key|^keys/m);
  });

  it('shows the busiest keys with their running and waiting runs, as a table and in -o json', async () => {
    for (let i = 0; i < 5; i++) await enqueue('acme');
    await enqueue('globex');

    const res = await viewer(['queues', 'get', 'exports']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^keys\s+the 2 busiest, most runs first:$/m);
    const table = res.stdout.slice(res.stdout.indexOf('\nKEY'));
    expect(table.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^KEY\s+RUNNING\s+WAITING$/),
      expect.stringMatching(/^acme\s+2\s+3$/),
      expect.stringMatching(/^globex\s+1\s+0$/),
    ]);

    const json = await viewer(['queues', 'get', 'exports', '-o', 'json']);
    expect(json.code).toBe(0);
    const q = JSON.parse(json.stdout) as { keys: unknown; policy: { concurrencyKey: unknown } };
    expect(q.policy.concurrencyKey).toEqual({ source: 'payload.tenant', limit: 2 });
    expect(q.keys).toEqual([
      { key: 'acme', running: 2, waiting: 3 },
      { key: 'globex', running: 1, waiting: 0 },
    ]);
  });

  it('shows the limit per key in the concurrency column of queues ls', async () => {
    const res = await viewer(['queues', 'ls']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^exports\s+running\s.*\s0 \(2 per key\)$/m);
    expect(res.stdout).toMatch(/^default\s+running\s.*\s0$/m);
  });

  it("enqueues a run with its concurrency key (--concurrency-key), held behind the key's place", async () => {
    const operator = droverAs(api, 'operator');
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await operator(['-o', 'json', 'enqueue', 'noop', '--queue', 'tenants', '--concurrency-key', 'acme']);
      expect(res.code).toBe(0);
      ids.push((JSON.parse(res.stdout) as { runId: string }).runId);
    }
    const held = await viewer(['runs', 'get', ids[1]!]);
    expect(held.stdout).toMatch(/^concurrency key\s+acme \(waiting for a place\)$/m);
    // Without a key the run is not limited; an empty key is refused, naming the field.
    const empty = await operator(['enqueue', 'noop', '--queue', 'tenants', '--concurrency-key', '']);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/concurrencyKey/);
  });
});
