import { applyMergePatch } from './merge-patch';

describe('JSON merge patch (RFC 7396)', () => {
  it('passes the examples of RFC 7396 appendix A', () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [
        ['a', 'b'],
        ['c', 'd'],
        ['c', 'd'],
      ],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ a: 'foo' }, 'bar', 'bar'],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, result] of cases) expect(applyMergePatch(target, patch)).toEqual(result);
  });

  it('changes neither input', () => {
    const target = { trigger: { kind: 'interval', everyMs: 1000 }, labels: { team: 'a' } };
    const patch = { trigger: { everyMs: 2000 }, labels: { team: null } };
    const before = structuredClone([target, patch]);
    expect(applyMergePatch(target, patch)).toEqual({ trigger: { kind: 'interval', everyMs: 2000 }, labels: {} });
    expect([target, patch]).toEqual(before);
  });
});
