import { togetherArgs, togetherScript } from './together-script';

describe('togetherScript (BullMQ’s add script once per job of a batch)', () => {
  it('makes the script the body of a function of KEYS and ARGV, called once per job on its own', () => {
    const lua = togetherScript({ name: 'addStandardJob', content: 'return KEYS[1] .. ARGV[1]', keys: 9 });
    expect(lua.startsWith('local function bullAdd(KEYS, ARGV)\nreturn KEYS[1] .. ARGV[1]\nend\n')).toBe(true);
    // Each job gets BullMQ's keys alone and its own arguments; its failure is its own answer.
    expect(lua).toContain('pcall(bullAdd, bullKeys, argv)');
    // Its guard keys are the next ones after BullMQ's and the jobs' before it.
    expect(lua).toContain('unpack(KEYS, kc + 1, kc + g)');
  });
});

describe('togetherArgs (a batch’s command arguments)', () => {
  it('puts the key count first, BullMQ’s keys, the guard keys, the counts, then every job’s arguments', () => {
    const packed = Buffer.from([1, 2]);
    const args = togetherArgs({
      keys: ['wait', 'meta'],
      argc: 2,
      guards: ['job-a'],
      // A guarded job (one guard key), then one without.
      argv: [1, packed, 'data-a', 0, packed, 'data-b'],
    });
    expect(args).toEqual([3, 'wait', 'meta', 'job-a', 2, 2, 1, packed, 'data-a', 0, packed, 'data-b']);
  });
});
