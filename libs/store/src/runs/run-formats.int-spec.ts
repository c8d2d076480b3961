import { testStores, waitFor } from '@drover/testing';
import { newRunId } from '../run-maker/run-id';
import { ProducerCodes } from './producer-codes';
import type { NewRun } from './new-run';

type Stores = ReturnType<typeof testStores>;

/** A queued run as the previous format wrote it: full producer name, `attempts` stored, a 27-character id. */
const OLD_ID = 'a-mhx9k2ab-0123456789abcdef';

describe('the lean run and the runs written before it (real redis-server)', () => {
  let s: Stores;
  let other: Stores | undefined;

  beforeEach(async () => {
    s = testStores('formats');
    await s.registry.put([{ name: 'q', maxAttempts: 3 }]);
  });

  afterEach(async () => {
    await other?.close();
    other = undefined;
    await s.close();
  });

  const fresh = (createdBy: string): NewRun => ({
    id: newRunId({ kind: 'ad-hoc', now: Date.now(), random: Math.random }),
    routine: null,
    jobType: 'noop',
    queue: 'q',
    source: 'api',
    scheduledFor: null,
    payload: { n: 1 },
    createdBy,
    freshId: true,
  });
  const stored = async (id: string) => {
    const h = await s.connections.command.hgetall(s.bull.keys.bullJob('q', id));
    return { data: JSON.parse(h.data!), opts: JSON.parse(h.opts!) };
  };
  // What differs between two runs whatever their format.
  const sameRun = ({ id: _i, createdAt: _c, updatedAt: _u, queuedAt: _q, ...rest }: object & Record<string, unknown>) =>
    rest;

  it('reads an old-format run exactly as a new one: producer name, attempts, status', async () => {
    await s.bull.get('q').add('noop', { payload: { n: 1 }, createdBy: 'billing' }, { jobId: OLD_ID, attempts: 3 });
    await s.runs.reading.producers.register('billing');
    const { id } = await s.runs.enqueue(fresh('billing'));

    // The new run stores the producer's code, no attempts and no copy of its 21-character id.
    expect(id).toHaveLength(21);
    const lean = await stored(id);
    expect(lean.data).toEqual({ payload: { n: 1 }, by: expect.stringMatching(/^[0-9a-z]{1,3}$/) });
    expect(lean.opts).toEqual({});

    const old = await s.runs.get(OLD_ID);
    const now = await s.runs.get(id);
    expect(old).toMatchObject({ id: OLD_ID, status: 'queued', createdBy: 'billing', maxAttempts: 3, attempt: 0 });
    expect(sameRun(now!)).toEqual(sameRun(old!));
    const listed = await s.runs.listRecent({ queue: 'q' });
    expect(listed.map((r) => [r.id, r.createdBy, r.maxAttempts])).toEqual(
      expect.arrayContaining([
        [OLD_ID, 'billing', 3],
        [id, 'billing', 3],
      ]),
    );

    // Another process, which has never seen the code, reads the name from Redis.
    other = testStores('formats', { prefix: s.keys.prefix });
    expect((await other.runs.get(id))?.createdBy).toBe('billing');

    // A queued run without its own attempts follows its queue's current policy; the old one keeps its own.
    await s.registry.put([{ name: 'q', maxAttempts: 5 }]);
    await waitFor('the new policy', async () => (await s.runs.get(id))?.maxAttempts === 5);
    expect((await s.runs.get(OLD_ID))?.maxAttempts).toBe(3);
  });

  it('writes the name in full until the process has its code; an unknown code reads as the code', async () => {
    const first = await s.runs.enqueue(fresh('reports'));
    expect((await stored(first.id)).data).toEqual({ payload: { n: 1 }, createdBy: 'reports' });
    await waitFor('the code of reports', async () => {
      const { id } = await s.runs.enqueue(fresh('reports'));
      return (await stored(id)).data.by !== undefined && id;
    });
    expect((await s.runs.listRecent({ queue: 'q' })).map((r) => r.createdBy)).toEqual(
      expect.arrayContaining(['reports', 'reports']),
    );
    await s.bull.get('q').add('noop', { payload: null, by: 'zz9' }, { jobId: 'a-unknown' });
    expect((await s.runs.get('a-unknown'))?.createdBy).toBe('zz9');
  });

  it('gives a name one code in the cluster, however many processes register it at once', async () => {
    const procs = [1, 2, 3, 4].map(() => new ProducerCodes(s.connections.command, s.keys));
    const codes = await Promise.all(procs.map((p) => p.register('api-token-ops')));
    expect(new Set(codes).size).toBe(1);
    const reader = new ProducerCodes(s.connections.command, s.keys);
    expect(reader.known(codes[0]!)).toBeUndefined();
    await reader.load([codes[0]!, 'nope']);
    expect(reader.nameOf(codes[0]!)).toBe('api-token-ops');
    expect(reader.nameOf('nope')).toBe('nope');
    expect(await procs[0]!.register('scheduler')).not.toBe(codes[0]);
  });
});
