import {
  afterLook,
  idleTick,
  initialIdle,
  parseCandidates,
  resetIdle,
  selectCandidates,
  type Candidate,
  type IdleState,
} from './selection.policy';

const NOW = 1_749_996_000_000;
const c = (key: string, band: number, stalenessSec: number | null, extra: Partial<Candidate> = {}): Candidate => ({
  key,
  band,
  stalenessSec,
  ...extra,
});
const pick = (cands: Candidate[], opts: Partial<Parameters<typeof selectCandidates>[1]> = {}) =>
  selectCandidates(cands, { now: NOW, maxPerTick: 10, depthWeight: 0.5, pendingKeys: new Set(), ...opts }).map(
    (x) => x.key,
  );

describe('choosing what a selector routine enqueues', () => {
  it('serves band 1 before band 2 before band 3, the stalest first within a band', () => {
    const cands = [c('arch-a', 3, 900), c('crit-old', 1, 50), c('build', 2, 10_000), c('crit-new', 1, 5)];
    expect(pick(cands)).toEqual(['crit-old', 'crit-new', 'build', 'arch-a']);
  });

  it('puts never-done work (null staleness) first in its band, ties broken by key', () => {
    expect(pick([c('b', 1, 100), c('z', 1, null), c('a', 1, null)])).toEqual(['a', 'z', 'b']);
  });

  it('weights staleness by (depth + 1) ^ (depthWeight × emphasis)', () => {
    // 100 s × (3 + 1)^(0.5 × 1) = 200 beats 150 s at depth 0; with depthWeight 0 plain staleness wins.
    const cands = [c('shallow', 1, 150, { depth: 0 }), c('deep', 1, 100, { depth: 3 })];
    expect(pick(cands)).toEqual(['deep', 'shallow']);
    expect(pick(cands, { depthWeight: 0 })).toEqual(['shallow', 'deep']);
    // Emphasis 2 doubles the exponent: 100 × 4^(0.5 × 2) = 400 beats 150 × 4^0.5 = 300.
    expect(pick([c('x', 1, 150, { depth: 3 }), c('y', 1, 100, { depth: 3, emphasis: 2 })])).toEqual(['y', 'x']);
  });

  it('never chooses a disabled candidate or a key already pending, and counts a repeated key once', () => {
    const cands = [c('off', 1, null, { disabled: true }), c('busy', 1, 900), c('ok', 2, 1), c('ok', 1, 999)];
    expect(pick(cands, { pendingKeys: new Set(['busy']) })).toEqual(['ok']);
  });

  it('takes the first maxPerTick', () => {
    expect(pick([c('a', 1, 3), c('b', 1, 2), c('c', 1, 1)], { maxPerTick: 2 })).toEqual(['a', 'b']);
    expect(pick([c('a', 1, 3)], { maxPerTick: 0 })).toEqual([]);
  });

  it("validates a provider's answer, naming the bad field", () => {
    expect(parseCandidates([{ key: 'a', stalenessSec: 3 }])).toEqual({
      ok: true,
      candidates: [{ key: 'a', band: 1, stalenessSec: 3 }],
    });
    expect(parseCandidates([{ key: '', stalenessSec: 1 }])).toMatchObject({
      ok: false,
      error: /^candidates\[0\.key\]/,
    });
    expect(parseCandidates('nope')).toMatchObject({ ok: false });
    expect(parseCandidates([{ key: 'a', stalenessSec: 1, extra: true }])).toMatchObject({ ok: false });
  });
});

describe('idle backoff of a selector routine', () => {
  /** Runs `n` ticks finding nothing; answers which ticks looked. */
  function idleTicks(from: IdleState, n: number): { looked: boolean[]; state: IdleState } {
    let state = from;
    const looked: boolean[] = [];
    for (let i = 0; i < n; i++) {
      const t = idleTick(state);
      looked.push(t.look);
      state = t.look ? afterLook(t.next, false, NOW) : t.next;
    }
    return { looked, state };
  }

  it('looks every tick, then every second, then every fourth while nothing is owed, and no slower', () => {
    const { looked, state } = idleTicks(initialIdle(), 11);
    expect(looked).toEqual([true, false, true, false, false, false, true, false, false, false, true]);
    expect(state.multiplier).toBe(4);
    expect(state.since).toBe(NOW);
  });

  it('keeps looking at the same pace while work is found, and resets after a success', () => {
    const backing = idleTicks(initialIdle(), 3).state;
    expect(afterLook(backing, true, NOW + 1)).toEqual(backing);
    expect(resetIdle()).toEqual({ multiplier: 1, tick: 0 });
  });
});
