import fc from 'fast-check';
import { bullPriorityFor, isDefaultRank, priorityValueOfBull, replayRunId } from './run-ids';
import { decodeCancel, encodeCancel } from './cancel-channel';

describe('replayRunId', () => {
  it('is the same for the same parked instance and differs for another parking', () => {
    expect(replayRunId('r-nightly-1000', 1_767_225_600_000)).toBe(replayRunId('r-nightly-1000', 1_767_225_600_000));
    expect(replayRunId('r-nightly-1000', 1)).not.toBe(replayRunId('r-nightly-1000', 2));
    expect(replayRunId('r-nightly-1000', 1_767_225_600_000)).toMatch(/^r-nightly-1000\.r[0-9a-z]+$/);
  });
});

describe('bullPriorityFor', () => {
  const sources = ['schedule', 'catch-up', 'manual', 'api', 'replay'] as const;

  it('serves every manual or replayed run before any other, then higher priority first', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...sources),
        fc.constantFrom(...sources),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -1000, max: 1000 }),
        (sa, sb, pa, pb) => {
          const manual = (s: string) => s === 'manual' || s === 'replay';
          const a = bullPriorityFor(sa, pa);
          const b = bullPriorityFor(sb, pb);
          expect(a).toBeGreaterThanOrEqual(1);
          if (manual(sa) && !manual(sb)) expect(a).toBeLessThan(b);
          if (manual(sa) === manual(sb) && pa > pb) expect(a).toBeLessThan(b);
          expect(priorityValueOfBull(a)).toBe(pa);
        },
      ),
    );
  });
});

describe('isDefaultRank', () => {
  it('is the medium-priority rank of runs no person started', () => {
    expect(isDefaultRank('schedule', 0)).toBe(true);
    expect(isDefaultRank('api', 0)).toBe(true);
    expect(isDefaultRank('catch-up', 1)).toBe(false);
    expect(isDefaultRank('manual', 0)).toBe(false);
    expect(isDefaultRank('replay', 0)).toBe(false);
  });
});

describe('cancel messages', () => {
  it('round-trip and reject anything malformed', () => {
    expect(decodeCancel(encodeCancel({ id: 'a-1', queue: 'default', reason: 'replaced' }))).toEqual({
      id: 'a-1',
      queue: 'default',
      reason: 'replaced',
    });
    expect(decodeCancel('{"id":"a-1","queue":"q"}')).toEqual({ id: 'a-1', queue: 'q', reason: 'canceled' });
    expect(decodeCancel('not json')).toBeUndefined();
    expect(decodeCancel('{"id":1}')).toBeUndefined();
  });
});
