import { guardedArgs, guardedScript } from './guarded-add';

describe('guardedScript (a guard before BullMQ’s own add script)', () => {
  it('checks the keys after the script’s own, then runs the script unchanged', () => {
    const lua = guardedScript({ name: 'addStandardJob', content: 'return KEYS[1]', keys: 9 });
    expect(lua).toBe('if redis.call("EXISTS", unpack(KEYS, 10)) > 0 then return {0} end\nreturn KEYS[1]');
  });

  it('refuses a script that reads a variable number of keys: it would see the guard keys', () => {
    for (const content of ['local n = #KEYS', 'rcall("DEL", unpack(KEYS))']) {
      expect(() => guardedScript({ name: 'addStandardJob', content, keys: 9 })).toThrow(/cannot be guarded/);
    }
  });
});

describe('guardedArgs (a guarded command’s arguments)', () => {
  it('puts the key count first and the guard keys after BullMQ’s own keys, before its arguments', () => {
    const args = ['wait', 'paused', 'meta', 'packed', 'data', 'opts'];
    expect(guardedArgs(3, args, ['job-a', 'record'])).toEqual([
      5,
      'wait',
      'paused',
      'meta',
      'job-a',
      'record',
      'packed',
      'data',
      'opts',
    ]);
    expect(args).toEqual(['wait', 'paused', 'meta', 'packed', 'data', 'opts']);
  });

  it('keeps BullMQ’s arguments as they are (buffers too) when there is no guard key', () => {
    const packed = Buffer.from([1, 2]);
    expect(guardedArgs(1, ['wait', packed], [])).toEqual([1, 'wait', packed]);
  });
});
