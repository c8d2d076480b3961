import { keyedRunRepair } from './keyed-run-repair';

describe('keyedRunRepair', () => {
  const holdFrom = 1_000_000;

  it('frees the place of a run whose job is gone or ended', () => {
    expect(keyedRunRepair({ exists: false, finished: false }, holdFrom)).toBe('drop');
    expect(keyedRunRepair({ exists: true, finished: true }, holdFrom)).toBe('drop');
  });

  it('starts a run its release chose but left held (a lost promote)', () => {
    expect(keyedRunRepair({ exists: true, finished: false, delayedUntil: holdFrom + 1 }, holdFrom)).toBe('start');
  });

  it('keeps a running, waiting or retrying run in its place', () => {
    expect(keyedRunRepair({ exists: true, finished: false }, holdFrom)).toBe('keep');
    expect(keyedRunRepair({ exists: true, finished: false, delayedUntil: holdFrom - 1 }, holdFrom)).toBe('keep');
  });
});
