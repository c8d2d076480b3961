import { RedisOutOfMemoryError } from './redis-out-of-memory.error';

const refusal = "OOM command not allowed when used memory > 'maxmemory'.";

describe('RedisOutOfMemoryError', () => {
  it("recognises Redis's refusal of a command, of a script and of a MULTI, keeping it as the cause", () => {
    const script = new Error(`${refusal} script: 5ab432e8, on @user_script:589.`);
    const execAbort = Object.assign(new Error('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [new Error('ERR other'), new Error(refusal)],
    });
    for (const err of [new Error(refusal), script, execAbort]) {
      const translated = RedisOutOfMemoryError.from(err);
      expect(translated).toBeInstanceOf(RedisOutOfMemoryError);
      expect((translated as RedisOutOfMemoryError).cause).toBe(err);
      expect(() => RedisOutOfMemoryError.rethrow(err)).toThrow(RedisOutOfMemoryError);
    }
  });

  it('lets every other error through as it is', () => {
    const other = Object.assign(new Error('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [new Error('ERR wrong number of arguments')],
    });
    for (const err of [new Error('ERR wrong number of arguments'), other, 'OOM command not allowed', null])
      expect(RedisOutOfMemoryError.from(err)).toBe(err);
    const already = new RedisOutOfMemoryError();
    expect(RedisOutOfMemoryError.from(already)).toBe(already);
  });

  it('carries its code and how long to wait', () => {
    expect(new RedisOutOfMemoryError()).toMatchObject({ code: 'redis-out-of-memory', retryAfterS: 5 });
  });
});
