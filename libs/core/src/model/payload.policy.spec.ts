import { checkPayload } from './payload.policy';

describe('checkPayload', () => {
  it('accepts plain JSON, including null-prototype objects', () => {
    expect(checkPayload({ a: [1, 'x', true, null, { b: 2.5 }] })).toEqual([]);
    expect(checkPayload(Object.assign(Object.create(null), { a: 1 }))).toEqual([]);
    expect(checkPayload('just a string')).toEqual([]);
  });

  it.each<[string, unknown, { path: (string | number)[]; message: RegExp }]>([
    ['a function', { f: () => 1 }, { path: ['f'], message: /a function is not JSON/ }],
    ['undefined', { u: undefined }, { path: ['u'], message: /a undefined is not JSON/ }],
    ['NaN', { n: [Number.NaN] }, { path: ['n', 0], message: /NaN is not a JSON number/ }],
    ['Infinity', Infinity, { path: [], message: /Infinity is not a JSON number/ }],
    ['a Date', { d: new Date(0) }, { path: ['d'], message: /a object is not JSON/ }],
    ['a bigint', { b: 1n }, { path: ['b'], message: /a bigint is not JSON/ }],
  ])('refuses %s', (_name, value, expected) => {
    const [issue] = checkPayload(value);
    expect(issue?.path).toEqual(expected.path);
    expect(issue?.message).toMatch(expected.message);
  });

  it('refuses nesting deeper than 64 levels (and so cycles)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(checkPayload(deep)[0]?.message).toBe('nested deeper than 64 levels');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(checkPayload(cyclic)[0]?.message).toBe('nested deeper than 64 levels');
  });

  it('measures size in UTF-8 bytes', () => {
    expect(checkPayload('é'.repeat(10), 22)).toEqual([]); // 20 bytes + 2 quotes
    expect(checkPayload('é'.repeat(10), 20)).toEqual([
      { path: [], message: 'is 22 bytes as JSON; the limit is 20 bytes' },
    ]);
  });
});
