import { parseBundle, type CandidateInput } from '@drover/core';
import { DuplicateOverrideError, triggerRoutine } from '@drover/store';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { TestCluster } from './cluster';

/**
 * A selector routine (jeeves-meta scheduling) with real processes: the scheduler's built-in
 * `http.candidates` provider asks a service what is owed each second; a worker at concurrency 1
 * runs one key at a time against the receiver, which marks a key done (no longer owed) when it is
 * delivered. Keys must arrive in the order core ranks them; idle backoff and overrides as promised.
 */
describe('a selector routine over HTTP candidates, one worker at concurrency 1', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;
  /** What the candidate service says is owed (a delivered key is done and leaves it). */
  let owed: CandidateInput[] = [];

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) => {
        if (path !== '/candidates') return undefined;
        const done = new Set(oracle.hits.map((h) => h.key));
        return { json: owed.filter((c) => !done.has(c.key)) };
      },
    });
    cluster = new TestCluster(
      { queues: [{ name: 'metas', concurrency: 1 }], routines: [] },
      { DROVER_LEADER_TTL_MS: '2000' },
    );
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  const delivered = () => oracle.hits.filter((h) => h.routine === 'metas').map((h) => h.key);

  it('delivers keys in rank order, backs off when nothing is owed, and serves an override first, once', async () => {
    // Three kinds of work, as three providers would report them: critics (band 1), builders
    // (band 2), architects (band 3); within a band the stalest, weighted by depth, goes first.
    owed = [
      { key: 'architect:docs', band: 3, stalenessSec: 9_000 },
      { key: 'builder:web', band: 2, stalenessSec: 150, depth: 0 },
      { key: 'critic:api', band: 1, stalenessSec: 5 },
      { key: 'builder:api', band: 2, stalenessSec: 100, depth: 3 }, // 100 × 4^0.5 = 200 > 150
      { key: 'critic:web', band: 1, stalenessSec: null }, // never done: stalest of all
      { key: 'architect:off', band: 3, stalenessSec: 99_999, disabled: true },
    ];
    const res = parseBundle({
      queues: [{ name: 'metas' }],
      routines: [
        {
          name: 'metas',
          jobType: 'http.request',
          queue: 'metas',
          trigger: { kind: 'interval', everyMs: 1000 },
          concurrencyPolicy: 'forbid',
          payload: { url: `${oracle.url}/synthesize?delayMs=200`, method: 'POST' },
          selector: { provider: 'http.candidates', args: { url: `${oracle.url}/candidates` } },
        },
      ],
    });
    if (!res.ok) throw new Error(res.errors.join('; '));
    await cluster.start('scheduler', 'sched-1');
    await cluster.start('worker', 'worker-1');
    await cluster.routines.upsert(res.bundle.routines[0]!, 'api', Date.now());

    await oracle.waitFor('the five enabled keys', () => delivered().length >= 5, 30_000);
    expect(delivered()).toEqual(['critic:web', 'critic:api', 'builder:api', 'builder:web', 'architect:docs']);

    // Nothing owed now: ticks back off (looked, skipped once, looked, skipped three times…).
    const reasons = async () =>
      (await cluster.runs.listByRoutine('metas', { limit: 20, status: 'skipped' })).map((r) => r.reason).reverse();
    await waitFor(
      'idle backoff',
      async () => {
        const r = (await reasons()).filter((x) => x === 'nothing-owed' || x === 'idle-backoff');
        return r.join(',').includes('nothing-owed,idle-backoff,idle-backoff,idle-backoff,nothing-owed');
      },
      { timeoutMs: 20_000 },
    );

    // An operator's override goes before automatic work that became owed right after it (forbid:
    // one run at a time), and a second override for the same key is refused while it is pending.
    const trigger = (key: string) =>
      triggerRoutine({ routines: cluster.routines, runs: cluster.runs }, 'metas', {
        now: Date.now(),
        random: Math.random,
        key,
      });
    const urgent = await trigger('critic:urgent');
    owed = [...owed, { key: 'builder:new', band: 2, stalenessSec: 1 }];
    await expect(trigger('critic:urgent')).rejects.toBeInstanceOf(DuplicateOverrideError);
    await oracle.waitFor('the override and the new work', () => delivered().length >= 7, 20_000);
    expect(delivered().slice(5)).toEqual(['critic:urgent', 'builder:new']);
    expect(oracle.hits.find((h) => h.key === 'critic:urgent')!.runId).toBe(urgent.id);
    // Every key once, and the disabled one never.
    expect(new Set(delivered()).size).toBe(delivered().length);
    expect(delivered()).not.toContain('architect:off');
  }, 90_000);
});
