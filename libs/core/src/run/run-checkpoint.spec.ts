import { CHECKPOINT_MAX_BYTES, decodeCheckpoint, encodeCheckpoint } from './run-checkpoint';

const T = 1_764_145_000_000;

describe('run checkpoints', () => {
  it('stores a state with when, which attempt and its size, and reads it back', () => {
    const encoded = encodeCheckpoint({ next: 40, done: ['a', 'b'] }, T, 2);
    expect(encoded).toEqual({
      raw: `{"at":${T},"attempt":2,"size":28,"state":{"next":40,"done":["a","b"]}}`,
      size: 28,
    });
    const raw = (encoded as { raw: string }).raw;
    expect(decodeCheckpoint(raw)).toEqual({ at: T, attempt: 2, size: 28, state: { next: 40, done: ['a', 'b'] } });
  });

  it('keeps any JSON value, null and plain numbers too; a property set to undefined reads back as missing', () => {
    for (const state of [null, 0, 'x', [1, 2], { a: { b: [null] } }]) {
      const { raw } = encodeCheckpoint(state, T, 1) as { raw: string };
      expect(decodeCheckpoint(raw)?.state).toEqual(state);
    }
    const { raw } = encodeCheckpoint({ a: 1, b: undefined }, T, 1) as { raw: string };
    expect(decodeCheckpoint(raw)?.state).toEqual({ a: 1 });
  });

  it('counts the size in UTF-8 bytes and refuses a state over the cap', () => {
    expect(encodeCheckpoint('é', T, 1)).toMatchObject({ size: 4 }); // "é" quoted: 2 + 2 bytes
    expect(encodeCheckpoint('x'.repeat(CHECKPOINT_MAX_BYTES - 2), T, 1)).toMatchObject({ size: CHECKPOINT_MAX_BYTES });
    expect(encodeCheckpoint('x'.repeat(CHECKPOINT_MAX_BYTES - 1), T, 1)).toEqual({
      problem: 'too-large',
      size: CHECKPOINT_MAX_BYTES + 1,
      max: CHECKPOINT_MAX_BYTES,
    });
  });

  it('refuses what would not read back as written, naming where', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: [unknown, RegExp][] = [
      [undefined, /state is undefined/],
      [{ at: new Date(T) }, /state\.at is a Date/],
      [{ seen: new Map() }, /state\.seen is a Map/],
      [{ n: Number.NaN }, /state\.n is NaN/],
      [{ list: [1, undefined] }, /state\.list\[1\] is undefined/],
      [{ f: () => 1 }, /state\.f is a function/],
      [{ big: 1n }, /BigInt/],
      [cyclic, /circular/i],
    ];
    for (const [state, detail] of cases) {
      const out = encodeCheckpoint(state, T, 1);
      expect(out).toMatchObject({ problem: 'not-json' });
      expect((out as { detail: string }).detail).toMatch(detail);
    }
  });

  it('reads anything else as no checkpoint', () => {
    for (const raw of [undefined, '', '{broken', 'null', '{"state":1}', '{"at":1,"attempt":1}']) {
      expect(decodeCheckpoint(raw)).toBeUndefined();
    }
  });
});
