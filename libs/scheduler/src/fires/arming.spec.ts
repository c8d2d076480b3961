import { nextFire, parseBundle, type Routine } from '@drover/core';
import { armFireJobId, fireOfJob } from '@drover/store';
import { ARM_ON_WRITE_MS, armsOnWrite, isArmable } from './arming';

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

describe('armsOnWrite', () => {
  const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);

  it('arms an armable routine whose first slot is within the bound, and no other', () => {
    const armsAt = (def: Routine, now: number) => armsOnWrite(def, nextFire(def, now)!, now);
    expect(armsAt(routine({}), T0 + 1)).toBe(true); // first slot a minute less a millisecond away
    expect(armsAt(routine({}), T0)).toBe(true); // a minute away: at the bound
    expect(armsAt(routine({ trigger: { kind: 'interval', everyMs: 2 * ARM_ON_WRITE_MS } }), T0)).toBe(false);
    expect(armsAt(routine({ trigger: { kind: 'cron', cron: '0 9 * * *' } }), T0)).toBe(false);
    expect(armsAt(routine({ trigger: { kind: 'cron', cron: '* * * * *' } }), T0 + 30_000)).toBe(true);
    expect(armsAt(routine({ concurrencyPolicy: 'forbid' }), T0 + 1)).toBe(false);
    expect(armsAt(routine({ trigger: { kind: 'once', at: new Date(T0 + 1000).toISOString() } }), T0)).toBe(false);
  });

  it('is dispatched as of the instant it was written, like a fire of no slot of its own', () => {
    expect(fireOfJob(armFireJobId('nightly-report-2', T0 + 5))).toEqual({ slot: T0 + 5 });
  });
});
