import { testStores } from '@drover/testing';
import { CandidateProbe, type CandidateRanking } from './candidate-probe';

const ranking = (routine: string, provider: string): CandidateRanking => ({
  routine,
  at: 1,
  provider,
  maxPerTick: 1,
  depthWeight: 0.5,
  ranked: [],
});

describe('CandidateProbe (real Redis): the api asks, one scheduler replica answers', () => {
  const stores = testStores('candidate-probe');
  const probes: CandidateProbe[] = [];
  const probe = () => {
    const p = new CandidateProbe(stores.connections, stores.keys);
    probes.push(p);
    return p;
  };

  afterAll(async () => {
    for (const p of probes) await p.onApplicationShutdown();
    await stores.close();
  });

  it('answers nobody while no replica listens', async () => {
    await expect(probe().ask('metas', 'probe-nobody-1', 1_000)).resolves.toEqual({ kind: 'nobody' });
  });

  it('lets exactly one of several replicas run the provider, and leaves no key behind', async () => {
    const calls: string[] = [];
    for (const name of ['sched-1', 'sched-2', 'sched-3']) {
      await probe().serve(async (routine) => {
        calls.push(name);
        return ranking(routine, name);
      });
    }
    const asker = probe();
    for (let i = 0; i < 5; i++) {
      const res = await asker.ask('metas', `probe-many-${i}`, 2_000);
      expect(res).toMatchObject({ kind: 'answered', ranking: { routine: 'metas' } });
    }
    expect(calls).toHaveLength(5);
    expect(await stores.connections.command.keys(`${stores.keys.prefix}:*candidates-probe*`)).toEqual([]);
  });

  it('gives up after its wait when the replica that claimed the request is too slow', async () => {
    for (const p of probes.splice(0)) await p.onApplicationShutdown(); // only the slow one serves
    const slow = probe();
    await slow.serve(() => new Promise((r) => setTimeout(() => r(ranking('slow', 'late')), 1_500)));
    await expect(probe().ask('slow', 'probe-slow-1', 300)).resolves.toEqual({ kind: 'late' });
  });
});
