import { rankCandidates, selectCandidates, type Candidate } from './selection.policy';

const NOW = 1_749_996_000_000;
const c = (key: string, band: number, stalenessSec: number | null, extra: Partial<Candidate> = {}): Candidate => ({
  key,
  band,
  stalenessSec,
  ...extra,
});
const OPTS = { now: NOW, maxPerTick: 2, depthWeight: 0.5, pendingKeys: new Set<string>() };

/** A small deterministic generator (mulberry32), so a failing case is the same on every run. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("a selector tick's ranking, as its dry run shows it", () => {
  it('ranks every candidate and says why each would or would not be chosen', () => {
    const ranked = rankCandidates(
      [
        c('arch', 3, 900),
        c('off', 1, 10_000, { disabled: true }),
        c('crit', 1, 50),
        c('build', 2, 100, { depth: 3 }),
        c('crit', 2, 5),
        c('waiting', 1, null),
        c('queued', 1, 70),
        c('late', 2, 10),
      ],
      { ...OPTS, pendingKeys: new Set(['waiting', 'queued']), overrideKeys: new Set(['waiting']) },
    );
    expect(ranked.map((r) => [r.rank, r.candidate.key, r.verdict, r.weightedStalenessSec])).toEqual([
      [1, 'waiting', 'pending-override', null],
      [2, 'off', 'disabled', 10_000],
      [3, 'queued', 'pending-run', 70],
      [4, 'crit', 'chosen', 50],
      [5, 'build', 'chosen', 200], // 100 s × (3 + 1)^(0.5 × 1)
      [6, 'late', 'beyond-max-per-tick', 10],
      [7, 'arch', 'beyond-max-per-tick', 900],
      [8, 'crit', 'repeated', 5],
    ]);
  });

  it("counts a key's first enabled entry: a disabled one before it does not take the key", () => {
    const ranked = rankCandidates([c('k', 1, 5, { disabled: true }), c('k', 1, 5)], OPTS);
    expect(ranked.map((r) => r.verdict)).toEqual(['disabled', 'chosen']);
  });

  it('chooses exactly what selectCandidates chooses, in the same order, for any answer', () => {
    const random = prng(26);
    for (let round = 0; round < 2000; round++) {
      const n = Math.floor(random() * 12);
      const cands = Array.from({ length: n }, () =>
        c(
          `k${Math.floor(random() * 8)}`,
          1 + Math.floor(random() * 3),
          random() < 0.2 ? null : Math.floor(random() * 50),
          {
            ...(random() < 0.3 && { depth: Math.floor(random() * 4) }),
            ...(random() < 0.2 && { emphasis: Math.floor(random() * 3) }),
            ...(random() < 0.2 && { disabled: true }),
          },
        ),
      );
      const pendingKeys = new Set(
        Array.from({ length: Math.floor(random() * 3) }, () => `k${Math.floor(random() * 8)}`),
      );
      const opts = {
        now: NOW,
        maxPerTick: Math.floor(random() * 4),
        depthWeight: random() < 0.5 ? 0 : 0.5,
        pendingKeys,
      };
      const chosen = rankCandidates(cands, opts).filter((r) => r.verdict === 'chosen');
      expect(chosen.map((r) => r.candidate)).toEqual(selectCandidates(cands, opts));
    }
  });
});
