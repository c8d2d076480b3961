import { guardedScript } from './guarded-add';

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
