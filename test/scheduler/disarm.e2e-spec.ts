import { parseBundle, runIdForSlot, type Routine } from '@drover/core';
import type { ArmedEntry, RunView } from '@drover/store';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { TestCluster } from './cluster';

/**
 * Runs armed ahead of their slots must never start for a definition that no longer holds —
 * whether the change reached the leader (pub/sub), or nobody was listening (no scheduler running,
 * the message lost). The routines here are made through the store, as the API and the client do,
 * so a scheduler's apply of DROVER_CONFIG does not undo the changes.
 */
describe('a deleted, paused or edited routine never starts a run prepared for its old definition', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    // A short lease: each test starts a scheduler after the previous one was killed.
    cluster = new TestCluster(
      { queues: [{ name: 'default', concurrency: 20 }], routines: [] },
      { DROVER_LEADER_TTL_MS: '2000' },
    );
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  function every(name: string, path: string, extra: Record<string, unknown> = {}): Routine {
    const res = parseBundle({
      queues: [{ name: 'default' }],
      routines: [
        {
          name,
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: 2000 },
          payload: { url: `${oracle.url}${path}`, method: 'POST' },
          ...extra,
        },
      ],
    });
    if (!res.ok) throw new Error(res.errors.join('; '));
    return res.bundle.routines[0]!;
  }

  const hitsOf = (routine: string) => oracle.hits.filter((h) => h.routine === routine);

  /**
   * The routine's runs armed for slots after `after` whose delayed jobs exist, once there are some.
   * (A scheduler killed between claiming a slot and creating its run leaves an entry with no job:
   * nothing to refuse there, and the global check that no old delivery happens still covers it.)
   */
  async function armedAfter(routine: string, after: number): Promise<ArmedEntry[]> {
    let seen = '';
    try {
      return await waitFor(
        `${routine} to have runs armed ahead`,
        async () => {
          const all = (await cluster.routines.getState(routine)).armed;
          const runs = await Promise.all(all.map((e) => cluster.run(runIdForSlot(routine, e.slot))));
          seen = all.map((e, i) => `${e.slot - after}ms:${runs[i]?.status ?? 'none'}`).join(' ');
          const armed = all.filter((e, i) => e.slot > after && runs[i]?.status === 'scheduled');
          return armed.length > 0 ? armed : undefined;
        },
        { timeoutMs: 5_000 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}; armed entries (slot - after: run status): [${seen}]`, { cause: err });
    }
  }

  /**
   * The entries whose slots come after `changedAt`, the moment a change returned. A slot due before
   * that rightly ran under the old definition (it was current when it started), so only later ones
   * are held to the rule. At 2 s slots, two armed ahead, at least one is always that far out.
   */
  function afterChange(entries: ArmedEntry[], changedAt: number): ArmedEntry[] {
    const later = entries.filter((e) => e.slot > changedAt);
    expect(later.length).toBeGreaterThan(0);
    return later;
  }

  /** Waits until the run of each entry has ended, and returns them. */
  async function endOf(routine: string, entries: ArmedEntry[], rev = 0): Promise<RunView[]> {
    return Promise.all(
      entries.map((e) =>
        waitFor(
          `the end of ${routine}@${e.slot} (rev ${rev})`,
          async () => {
            const run = await cluster.run(runIdForSlot(routine, e.slot, rev));
            return run && ['succeeded', 'canceled', 'skipped'].includes(run.status) ? run : undefined;
          },
          { timeoutMs: 15_000 },
        ),
      ),
    );
  }

  it('deleted while no scheduler runs: its armed runs are refused by the worker and never reach the receiver', async () => {
    const scheduler = await cluster.start('scheduler', 'sched-del');
    await cluster.start('worker', 'worker-1');
    await cluster.routines.upsert(every('del-me', '/del'), 'api', Date.now());
    await oracle.waitFor('two deliveries', () => hitsOf('del-me').length >= 2, 15_000);
    await scheduler.stop('SIGKILL');
    const ahead = await armedAfter('del-me', Date.now());
    expect(await cluster.routines.remove('del-me')).toBe(true);
    const deletedAt = Date.now();
    const armed = afterChange(ahead, deletedAt);

    const ended = await endOf('del-me', armed);
    expect(ended.map((r) => [r.status, r.reason])).toEqual(
      armed.map(() => ['canceled', 'not started: its routine was deleted before its slot']),
    );
    expect(hitsOf('del-me').filter((h) => Date.parse(h.scheduledFor) > deletedAt)).toEqual([]);
  }, 60_000);

  it('edited while no scheduler runs: no run armed for the old payload starts; the next scheduler decides those slots again', async () => {
    const scheduler = await cluster.start('scheduler', 'sched-edit');
    await cluster.routines.upsert(every('edit-me', '/old'), 'api', Date.now());
    await oracle.waitFor('two deliveries', () => hitsOf('edit-me').length >= 2, 15_000);
    await scheduler.stop('SIGKILL');
    const ahead = await armedAfter('edit-me', Date.now());
    expect(await cluster.routines.upsert(every('edit-me', '/new'), 'api', Date.now())).toBe('updated');
    const editedAt = Date.now();
    const armed = afterChange(ahead, editedAt);

    const refused = await endOf('edit-me', armed);
    expect(refused.map((r) => r.status)).toEqual(armed.map(() => 'canceled'));
    expect(hitsOf('edit-me').filter((h) => h.path === '/old' && Date.parse(h.scheduledFor) > editedAt)).toEqual([]);

    // A scheduler comes back: the refused slots are decided again under their next revision, with
    // the new definition (run if still on time, else recorded per the catch-up policy), and the
    // routine goes on with the new payload.
    await cluster.start('scheduler', 'sched-edit-2');
    const again = await endOf('edit-me', armed, 1);
    expect(again.every((r) => r.status === 'succeeded' || r.reason === 'catch-up-skip')).toBe(true);
    await oracle.waitFor(
      'a delivery of the new payload',
      () => hitsOf('edit-me').some((h) => h.path === '/new'),
      15_000,
    );
    expect(hitsOf('edit-me').filter((h) => h.path === '/old' && Date.parse(h.scheduledFor) > editedAt)).toEqual([]);
  }, 90_000);

  it('paused with the leader running: the armed runs are withdrawn and their slots recorded as paused', async () => {
    await cluster.start('scheduler', 'sched-pause');
    await cluster.routines.upsert(every('pause-me', '/pause'), 'api', Date.now());
    await oracle.waitFor('two deliveries', () => hitsOf('pause-me').length >= 2, 15_000);
    const ahead = await armedAfter('pause-me', Date.now());
    await cluster.routines.setStatus('pause-me', 'paused', Date.now());
    const pausedAt = Date.now();
    const armed = afterChange(ahead, pausedAt);

    const recorded = await endOf('pause-me', armed, 1);
    expect(recorded.map((r) => [r.status, r.reason])).toEqual(armed.map(() => ['skipped', 'paused']));
    // The armed runs never started: withdrawn by the leader (gone), or, for a slot that came due
    // before the leader got to it, refused by the worker at start.
    for (const e of armed) {
      const old = await cluster.run(runIdForSlot('pause-me', e.slot));
      if (old) expect([old.status, old.reason?.startsWith('not started:')]).toEqual(['canceled', true]);
    }
    expect(hitsOf('pause-me').filter((h) => Date.parse(h.scheduledFor) > pausedAt)).toEqual([]);
  }, 60_000);
});
