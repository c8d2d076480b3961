import { Worker } from 'bullmq';
import { parseBundle, parseRunSearch, SEARCH_SCAN_LIMIT } from '@drover/core';
import type { NewRun } from '@drover/store';
import { ManualClock, testStores } from '@drover/testing';
import { ProblemError } from '../http/problem';
import { RunListing, type RunListQuery } from './run-listing.service';

const T0 = Date.UTC(2026, 10, 26, 0, 0, 0);
const HOUR = 3_600_000;

/**
 * Finding a run against a real redis-server and real BullMQ jobs: the window, the search and the
 * hiding of housekeeping pick the right runs, and a search never reads more than its scan bound.
 */
describe('GET /runs filters and search (RunListing on a real redis-server)', () => {
  const clock = new ManualClock(T0);
  const c = testStores('run-search', { clock });
  const listing = new RunListing(c.runs, c.registry, c.routines, clock);
  const run = (id: string, routine: string, payload: unknown, over: Partial<NewRun> = {}): NewRun => ({
    id,
    routine,
    jobType: 'noop',
    queue: 'q',
    source: 'api',
    scheduledFor: null,
    payload,
    ...over,
  });
  const ids = async (q: Partial<RunListQuery>) => (await listing.page({ pageSize: 50, ...q })).items.map((r) => r.id);
  const search = (text: string) => parseRunSearch(text)!;

  beforeAll(async () => {
    await c.registry.put([{ name: 'q', maxAttempts: 1 }, { name: 'bulk' }, { name: 'ended' }]);
    const bundle = parseBundle({
      queues: [{ name: 'q' }],
      routines: ['billing', 'housekeeping', 'bulk'].map((name) => ({
        name,
        jobType: 'noop',
        queue: 'q',
        trigger: { kind: 'manual' },
        system: name === 'housekeeping',
      })),
    });
    if (!bundle.ok) throw new Error(bundle.errors.join());
    await c.routines.createMany(bundle.bundle.routines, 'api', T0);
    // b-3 is made first and parked with an error; the others stay queued. Creation times are set by the clock.
    clock.t = T0 + 3 * HOUR;
    await c.runs.enqueue(run('b-3', 'billing', { customer: { id: 42 } }));
    const worker = new Worker(c.keys.bullQueueName('q'), null, {
      connection: c.connections.open('blocking', 'finisher'),
      prefix: c.keys.bullPrefix,
    });
    await (await worker.getNextJob('tok'))!.moveToFailed(new Error('connect ECONNREFUSED 127.0.0.1:9'), 'tok');
    await worker.close();
    clock.t = T0;
    await c.runs.enqueue(run('b-1', 'billing', { customer: { id: 42 }, tags: ['vip'] }));
    clock.t = T0 + HOUR;
    await c.runs.enqueue(run('b-2', 'billing', { customer: { id: 7 } }));
    clock.t = T0 + 2 * HOUR;
    await c.runs.enqueue(run('h-1', 'housekeeping', {}));
    clock.t = T0 + 4 * HOUR;
  }, 30_000);

  afterAll(() => c.close());

  it('hides the runs of system routines unless asked, or unless their routine is named', async () => {
    expect(await ids({ queue: 'q' })).toEqual(['b-3', 'b-2', 'b-1']);
    expect(await ids({ queue: 'q', includeSystem: true })).toEqual(['b-3', 'h-1', 'b-2', 'b-1']);
    expect(await ids({ routine: 'housekeeping' })).toEqual(['h-1']);
  });

  it('keeps the runs created in a window: a duration ago or ISO instants, bounds included', async () => {
    expect(await ids({ queue: 'q', since: '2h' })).toEqual(['b-3']);
    expect(await ids({ queue: 'q', since: '2h', includeSystem: true })).toEqual(['b-3', 'h-1']);
    expect(
      await ids({ queue: 'q', since: new Date(T0).toISOString(), until: new Date(T0 + HOUR).toISOString() }),
    ).toEqual(['b-2', 'b-1']);
    expect(await ids({ routine: 'billing', until: '3h' })).toEqual(['b-2', 'b-1']);
  });

  it('searches payload fields, run ids and error text, with the indexed filters', async () => {
    expect(await ids({ search: search('customer.id=42') })).toEqual(['b-3', 'b-1']);
    expect(await ids({ search: search('tags=vip') })).toEqual(['b-1']);
    expect(await ids({ search: search('customer.id=42'), status: 'parked' })).toEqual(['b-3']);
    expect(await ids({ search: search('econnrefused') })).toEqual(['b-3']);
    expect(await ids({ search: search('B-2') })).toEqual(['b-2']);
    expect(await ids({ routine: 'billing', search: search('customer.id=7') })).toEqual(['b-2']);
    expect(await ids({ search: search('customer.id=42'), since: '2h' })).toEqual(['b-3']);
    expect(await ids({ search: search('h-1') })).toEqual([]);
  });

  it('answers 400 naming the bad bound', async () => {
    const problem = async (q: Partial<RunListQuery>) => {
      const err = await listing.page({ pageSize: 50, ...q }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProblemError);
      return (err as ProblemError).problem.status;
    };
    await expect(listing.page({ pageSize: 50, since: 'yesterday' })).rejects.toMatchObject({
      problem: { status: 400, errors: [{ path: 'query.since' }] },
    });
    await expect(listing.page({ pageSize: 50, since: '1h', until: '2h' })).rejects.toMatchObject({
      problem: { errors: [{ path: 'query.until', message: 'is before since' }] },
    });
    expect(await problem({ until: '2026-11-26T00:00:00' })).toBe(400);
  });

  it('a search reads at most its scan bound a page and says so; the next page goes on', async () => {
    const n = SEARCH_SCAN_LIMIT + 200;
    clock.t = T0 + 5 * HOUR;
    const bulk = Array.from({ length: n }, (_, i) =>
      run(`bulk-${String(i).padStart(4, '0')}`, 'bulk', { i }, { queue: 'bulk' }),
    );
    for (let i = 0; i < n; i += 200) {
      clock.t += 1;
      await c.runs.enqueueMany(bulk.slice(i, i + 200));
    }
    // Over the ceiling: each queue and state lists its newest 1000, so one page reads them all and says it stopped.
    const first = await listing.page({ queue: 'bulk', pageSize: 20, search: search('i=5') });
    expect(first.items).toEqual([]);
    expect(first).toMatchObject({ scanned: SEARCH_SCAN_LIMIT, scanLimitReached: true });
    expect(first.next).toBeUndefined();
    // A match among the newest: found, and the page ends as soon as it is full.
    const found = await listing.page({ queue: 'bulk', pageSize: 1, search: search(`i=${n - 3}`) });
    expect(found.items.map((r) => r.id)).toEqual([`bulk-${n - 3}`]);
    expect(found.scanned).toBeLessThanOrEqual(100);
    // A window is applied before anything is read: none of the bulk runs are before T0 + 5h.
    const narrow = await listing.page({ queue: 'bulk', pageSize: 20, search: search('i=5'), until: '2h' });
    expect(narrow).toMatchObject({ items: [], scanned: 0 });
  }, 60_000);

  it('with until, reaches ended runs older than the newest 1000 of their state', async () => {
    const [old, recent] = [T0 + 6 * HOUR, T0 + 8 * HOUR];
    const made = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        run(`${prefix}-${String(i).padStart(4, '0')}`, 'bulk', {}, { queue: 'ended' }),
      );
    clock.t = old;
    await c.runs.enqueueMany(made('old', 30));
    clock.t = recent;
    for (let i = 0; i < 1050; i += 350) await c.runs.enqueueMany(made('new', 1050).slice(i, i + 350));
    const worker = new Worker(c.keys.bullQueueName('ended'), () => Promise.resolve({}), {
      connection: c.connections.open('blocking', 'ender'),
      prefix: c.keys.bullPrefix,
      concurrency: 50,
    });
    const queue = c.bull.get('ended');
    while ((await queue.getCompletedCount()) < 1080) await new Promise((r) => setTimeout(r, 100));
    await worker.close();
    // As if they had ended when they were made: BullMQ scores an ended job by when it ended.
    const pipe = c.connections.command.pipeline();
    for (const r of made('old', 30)) pipe.zadd(queue.toKey('completed'), old + 1000, r.id);
    for (const r of made('new', 1050)) pipe.zadd(queue.toKey('completed'), recent + 1000, r.id);
    await pipe.exec();
    clock.t = recent + HOUR;
    const page = await listing.page({ queue: 'ended', pageSize: 100, until: new Date(old + 5000).toISOString() });
    expect(page.items.map((r) => r.id)).toEqual(
      made('old', 30)
        .map((r) => r.id)
        .reverse(),
    );
    expect(page.items.every((r) => r.status === 'succeeded')).toBe(true);
  }, 60_000);
});
