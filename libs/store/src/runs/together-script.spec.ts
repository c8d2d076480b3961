import { togetherArgs, togetherScript } from './together-script';

describe('togetherScript (BullMQ’s add script once per job of a batch)', () => {
  it('makes the script the body of a function of KEYS and ARGV, called once per job', () => {
    const lua = togetherScript({ name: 'addStandardJob', content: 'return KEYS[1] .. ARGV[1]', keys: 9 });
    expect(lua.startsWith('local function bullAdd(KEYS, ARGV)\nreturn KEYS[1] .. ARGV[1]\nend\n')).toBe(true);
    // Each job gets BullMQ's keys alone and its own arguments; the guard keys come after BullMQ's.
    expect(lua).toContain('bullAdd(bullKeys, argv)');
    expect(lua).toContain('unpack(KEYS, nk + g * j + 1, nk + g * (j + 1))');
  });
});

describe('togetherArgs (a batch’s command arguments)', () => {
  it('puts the key count first, BullMQ’s keys, the guard keys, the counts, then every job’s arguments', () => {
    const packed = Buffer.from([1, 2]);
    const args = togetherArgs({
      keys: ['wait', 'meta'],
      argc: 2,
      guardc: 1,
      guards: ['job-a', 'job-b'],
      argv: [packed, 'data-a', packed, 'data-b'],
    });
    expect(args).toEqual([4, 'wait', 'meta', 'job-a', 'job-b', 2, 2, 1, packed, 'data-a', packed, 'data-b']);
  });

  it('has no guard keys for unguarded jobs', () => {
    expect(togetherArgs({ keys: ['wait'], argc: 1, guardc: 0, guards: [], argv: ['a', 'b'] })).toEqual([
      1,
      'wait',
      1,
      1,
      0,
      'a',
      'b',
    ]);
  });
});
