import { slotLedger } from './slot-ledger';

const MIN = 60_000;
const T0 = Date.UTC(2026, 11, 24, 12);
const trigger = { trigger: { kind: 'interval' as const, everyMs: MIN }, endAt: new Date(T0 + 4 * MIN).toISOString() };
const id = (slot: number) => `r-r-${slot}`;

describe('slot ledger: exclusions, operator skips and bounds', () => {
  it('shows recorded excluded and operator-skipped slots with their detail, and those still ahead as to come', () => {
    const ledger = slotLedger('r', {
      trigger,
      from: T0,
      to: T0 + 10 * MIN,
      now: T0 + 2 * MIN + 1,
      cursor: T0 + 2 * MIN,
      records: [
        { id: id(T0 + MIN), status: 'skipped', source: 'schedule', attempt: 0, reason: 'excluded: xmas' },
        {
          id: id(T0 + 2 * MIN),
          status: 'skipped',
          source: 'schedule',
          attempt: 0,
          reason: 'skipped-by-operator: by ana',
        },
      ],
      ahead: (slot) => (slot === T0 + 4 * MIN ? 'skipped-by-operator: by bo' : undefined),
    });
    expect(ledger.ok && ledger.slots.map((s) => [(s.slot - T0) / MIN, s.fate, s.reason, s.detail, s.recorded])).toEqual(
      [
        [1, 'skipped', 'excluded', 'excluded: xmas', true],
        [2, 'skipped', 'skipped-by-operator', 'skipped-by-operator: by ana', true],
        [3, 'not-yet-due', undefined, undefined, true],
        // Nothing after endAt: slots 5 to 10 are no slots at all.
        [4, 'not-yet-due', 'skipped-by-operator', 'skipped-by-operator: by bo', false],
      ],
    );
  });
});
