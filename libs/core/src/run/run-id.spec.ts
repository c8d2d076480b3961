import { adHocRunId, parseSlotRunId, runIdForIdempotencyKey, runIdForSlot } from './run-id';

const NOW = 1_749_996_000_000;

describe('run ids', () => {
  it('derives the same id for the same slot, with no ":"', () => {
    expect(runIdForSlot('nightly-backup', NOW)).toBe('r-nightly-backup-1749996000000');
    expect(runIdForSlot('a.b_c', 0)).toBe('r-a.b_c-0');
    expect(runIdForSlot('nightly-backup', NOW)).not.toContain(':');
  });

  it('gives a slot decided again after a withdrawn armed run a new id per revision', () => {
    expect(runIdForSlot('nightly', NOW, 0)).toBe(`r-nightly-${NOW}`);
    expect(runIdForSlot('nightly', NOW, 1)).toBe(`r-nightly-${NOW}.1`);
    expect(() => runIdForSlot('nightly', NOW, -1)).toThrow(RangeError);
    expect(() => runIdForSlot('nightly', NOW, 0.5)).toThrow(RangeError);
  });

  it.each([
    ['Bad Name', NOW],
    ['a:b', NOW],
    ['ok', -1],
    ['ok', 1.5],
    ['ok', Number.NaN],
  ])('refuses routine %j slot %d', (name, slot) => {
    expect(() => runIdForSlot(name, slot)).toThrow(RangeError);
  });

  it('parses slot ids back, even when the routine name contains dashes and digits', () => {
    expect(parseSlotRunId('r-a-1-5')).toEqual({ routine: 'a-1', slotMs: 5, rev: 0 });
    expect(parseSlotRunId(runIdForSlot('x-9', NOW))).toEqual({ routine: 'x-9', slotMs: NOW, rev: 0 });
    expect(parseSlotRunId(runIdForSlot('x-9', NOW, 2))).toEqual({ routine: 'x-9', slotMs: NOW, rev: 2 });
    expect(parseSlotRunId(`${runIdForSlot('x-9', NOW)}.rmjxq0k1c`)).toBeUndefined(); // a replay's id
    expect(parseSlotRunId('a-123-abc')).toBeUndefined();
    expect(parseSlotRunId('r-Bad-5')).toBeUndefined();
    expect(parseSlotRunId('r-a-99999999999999999999')).toBeUndefined();
  });

  it('makes ad-hoc ids from the injected clock and random', () => {
    let i = 0;
    const random = () => (i++ % 36) / 36;
    expect(adHocRunId(NOW, random)).toBe(`a-${NOW.toString(36)}-0123456789`);
    expect(adHocRunId(NOW, () => 0.9999999999999, 'm')).toBe(`m-${NOW.toString(36)}-zzzzzzzzzz`);
    expect(adHocRunId(-5, () => -1)).toBe('a-0-0000000000');
  });

  it('keeps ad-hoc ids short and sorted by creation time', () => {
    const ids = [NOW, NOW + 1, NOW + 36, NOW + 86_400_000].map((t) => adHocRunId(t, () => 0.99));
    expect(ids.every((id) => id.length === 21)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });

  it('maps an idempotency key to a stable, safe id', () => {
    expect(runIdForIdempotencyKey('order:42')).toBe(runIdForIdempotencyKey('order:42'));
    expect(runIdForIdempotencyKey('order:42')).toMatch(/^k-[0-9a-f]{32}$/);
    expect(runIdForIdempotencyKey('order:42')).not.toBe(runIdForIdempotencyKey('order:43'));
  });

  it('derives the same id from a key in every version (the first 32 hex of sha256 of its UTF-8)', () => {
    // Pinned: a key names the same run across upgrades, so these values may never change.
    expect(runIdForIdempotencyKey('order:42')).toBe('k-da68380de022bac727782efee3c495d4');
    expect(runIdForIdempotencyKey('facture:é:ключ:🚀')).toBe('k-cbfd8f935dd8cf21d3a6e52c1364afff');
  });
});
