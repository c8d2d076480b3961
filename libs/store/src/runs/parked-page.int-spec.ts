import { Worker } from 'bullmq';
import { testStores } from '@drover/testing';
import type { ParkedCursor } from './parked.store';

describe('the parked area, page by page (real redis-server)', () => {
  const c = testStores('parked-page');
  const q = 'q';

  beforeAll(async () => {
    await c.registry.put([{ name: q, maxAttempts: 1 }]);
    const ids = ['p-01', 'p-02', 'p-03', 'p-04', 'p-05', 'p-06', 'p-07'];
    await c.runs.enqueueMany(
      ids.map((id) => ({
        id,
        routine: null,
        jobType: 'noop',
        queue: q,
        source: 'api',
        scheduledFor: null,
        payload: {},
      })),
    );
    const worker = new Worker(c.keys.bullQueueName(q), null, {
      connection: c.connections.open('blocking', 'finisher'),
      prefix: c.keys.bullPrefix,
    });
    for (const _ of ids) {
      const job = await worker.getNextJob('tok');
      await job!.moveToFailed(new Error(`boom ${job!.id}`), 'tok');
    }
    await worker.close();
    // Force ties: p-02..p-05 parked in the same millisecond, p-01 oldest, p-06/p-07 newest.
    const key = c.bull.keys.bullFailed(q);
    const scores: [number, string][] = [
      [1000, 'p-01'],
      [2000, 'p-02'],
      [2000, 'p-03'],
      [2000, 'p-04'],
      [2000, 'p-05'],
      [3000, 'p-06'],
      [4000, 'p-07'],
    ];
    await c.connections.command.zadd(key, ...scores.flat());
  });

  afterAll(() => c.close());

  it('walks every parked run once, newest first, equal times by id descending, across tied pages', async () => {
    const seen: string[] = [];
    let after: ParkedCursor | undefined;
    let pages = 0;
    do {
      const page = await c.runs.pageParked(q, { after, limit: 2 });
      seen.push(...page.items.map((i) => i.run.id));
      after = page.next;
      pages++;
    } while (after && pages < 10);
    expect(seen).toEqual(['p-07', 'p-06', 'p-05', 'p-04', 'p-03', 'p-02', 'p-01']);
    expect(pages).toBe(4);
  });

  it('lists parked ids within a time window from the index alone, newest first', async () => {
    expect(await c.runs.parkedIds(q, { after: 1000, before: 4000 })).toEqual(['p-06', 'p-05', 'p-04', 'p-03', 'p-02']);
    expect(await c.runs.parkedIds(q, { before: 2000 })).toEqual(['p-01']);
    expect(await c.runs.parkedIds(q)).toHaveLength(7);
  });

  it('neither skips nor repeats a run when runs before the cursor go away between pages', async () => {
    const first = await c.runs.pageParked(q, { limit: 3 });
    expect(first.items.map((i) => i.run.id)).toEqual(['p-07', 'p-06', 'p-05']);
    expect(first.items[0]!.run).toMatchObject({
      status: 'parked',
      errors: [expect.objectContaining({ message: 'Error: boom p-07' })],
    });
    await c.runs.purgeParked(q, 'p-06');
    const second = await c.runs.pageParked(q, { after: first.next, limit: 10 });
    expect(second.items.map((i) => i.run.id)).toEqual(['p-04', 'p-03', 'p-02', 'p-01']);
    expect(second.next).toBeUndefined();
    expect(second.items[1]!.at).toEqual({ parkedAt: 2000, id: 'p-03' });
  });
});

describe('ProcessCatalog (real redis-server)', () => {
  it('lists live processes per role and forgets those whose entry expired', async () => {
    const stores = testStores('processes');
    const { processes } = stores;
    const entry = {
      role: 'scheduler' as const,
      instanceId: 's-1',
      nonce: 'n1',
      version: '1.0.0',
      pid: 1,
      hostname: 'h',
      startedAt: 1,
      heartbeatAt: 2,
      leader: { epoch: 3, since: 2 },
    };
    try {
      await processes.publish(entry, 60_000);
      await processes.publish({ ...entry, instanceId: 's-2', leader: undefined }, 1);
      await processes.publish({ ...entry, role: 'api', instanceId: 'a-1', leader: undefined }, 60_000);
      await new Promise((r) => setTimeout(r, 20));
      expect(await processes.list('scheduler')).toEqual([entry]);
      expect((await processes.list('api')).map((p) => p.instanceId)).toEqual(['a-1']);
      await processes.remove('scheduler', 's-1');
      expect(await processes.list('scheduler')).toEqual([]);
    } finally {
      await stores.close();
    }
  });
});
