import { parseBundle, type Routine } from '@drover/core';
import { isArmable } from './arming';

function routine(extra: Record<string, unknown>): Routine {
  const res = parseBundle({
    queues: [{ name: 'q' }],
    routines: [{ name: 'r', jobType: 'noop', queue: 'q', trigger: { kind: 'interval', everyMs: 60_000 }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('isArmable', () => {
  it.each([
    ['allow', true],
    ['forbid', false],
    ['replace', false],
    ['buffer-one', false],
  ])('concurrencyPolicy %s → %s (overlap is decided at fire time for all but allow)', (policy, armable) => {
    expect(isArmable(routine({ concurrencyPolicy: policy }))).toBe(armable);
  });
});
