import { MAX_PENDING_SKIPS, parseBundle, RoutineNotFoundError, type Routine } from '@drover/core';
import { testStores } from '@drover/testing';
import { NotASlotError } from '../errors/not-a-slot.error';
import { SlotNotSkippableError } from '../errors/slot-not-skippable.error';
import { skipSlot, unskipSlot } from './slot-skip';

const MIN = 60_000;
const T0 = Date.UTC(2026, 11, 1);
const iso = (ms: number) => new Date(ms).toISOString();

function routine(extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name: 'r', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: MIN }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

describe('operator skips of single slots (real Redis)', () => {
  let stores: ReturnType<typeof testStores>;
  const deps = () => ({
    routines: stores.routines,
    claims: stores.claims,
    skips: stores.skips,
    changes: stores.routineChanges,
  });

  beforeEach(async () => {
    stores = testStores('slot-skips');
    await stores.registry.put([{ name: 'default' }]);
  });

  afterEach(() => stores.close());

  it('stores a skip with who and when, once; lists it; undoes it', async () => {
    await stores.routines.upsert(routine(), 'api', T0);
    const slot = T0 + 5 * MIN;
    expect(await skipSlot(deps(), 'r', slot, { now: T0, by: 'alice' })).toEqual({
      skip: { slot, by: 'alice', at: T0 },
      created: true,
    });
    expect(await skipSlot(deps(), 'r', slot, { now: T0 + 1, by: 'bob' })).toEqual({
      skip: { slot, by: 'alice', at: T0 },
      created: false,
    });
    expect([...(await stores.skips.pending('r')).values()]).toEqual([{ slot, by: 'alice', at: T0 }]);
    // The hash expires a day after its latest slot.
    const ttl = await stores.connections.command.pttl(stores.keys.routineSkips('r'));
    expect(ttl).toBeGreaterThan(0);
    expect(await unskipSlot(deps(), 'r', slot)).toBe(true);
    expect(await unskipSlot(deps(), 'r', slot)).toBe(false);
  });

  it('refuses what is no slot (naming the nearest), a past slot, an excluded one, an unknown routine', async () => {
    await stores.routines.upsert(routine({ exclude: [{ name: 'xmas', dates: ['2026-12-25'] }] }), 'api', T0);
    const odd = skipSlot(deps(), 'r', T0 + 5 * MIN + 1, { now: T0, by: 'a' });
    await expect(odd).rejects.toBeInstanceOf(NotASlotError);
    await expect(odd).rejects.toThrow(
      `${iso(T0 + 5 * MIN + 1)} is not a slot of routine "r"; the slot before is ${iso(T0 + 5 * MIN)}, the slot after is ${iso(T0 + 6 * MIN)}`,
    );
    await expect(skipSlot(deps(), 'r', T0 - MIN, { now: T0, by: 'a' })).rejects.toThrow(/its time has passed/);
    await expect(skipSlot(deps(), 'r', Date.UTC(2026, 11, 25, 9), { now: T0, by: 'a' })).rejects.toThrow(
      /it is excluded: xmas already/,
    );
    await expect(skipSlot(deps(), 'nope', T0 + MIN, { now: T0, by: 'a' })).rejects.toBeInstanceOf(RoutineNotFoundError);
  });

  it(`holds at most ${MAX_PENDING_SKIPS} pending skips, and forgets them with the routine`, async () => {
    await stores.routines.upsert(routine(), 'api', T0);
    for (let k = 1; k <= MAX_PENDING_SKIPS; k++) await skipSlot(deps(), 'r', T0 + k * MIN, { now: T0, by: 'a' });
    const over = skipSlot(deps(), 'r', T0 + (MAX_PENDING_SKIPS + 1) * MIN, { now: T0, by: 'a' });
    await expect(over).rejects.toBeInstanceOf(SlotNotSkippableError);
    await expect(over).rejects.toThrow(`the routine has ${MAX_PENDING_SKIPS} pending skips already`);
    expect((await stores.skips.pending('r')).size).toBe(MAX_PENDING_SKIPS);
    await stores.routines.remove('r');
    expect((await stores.skips.pending('r')).size).toBe(0);
  });
});
