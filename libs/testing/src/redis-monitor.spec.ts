import { parseMonitorLine } from './redis-monitor';

describe('parseMonitorLine', () => {
  it('reads the command lower-cased and unescapes its arguments', () => {
    expect(parseMonitorLine('+1700000000.123456 [0 127.0.0.1:50000] "HSET" "k:1" "a\\"b" "c\\\\d"')).toEqual([
      'hset',
      'k:1',
      'a"b',
      'c\\d',
    ]);
  });

  it('decodes hex escapes and control characters', () => {
    expect(parseMonitorLine('+1.0 [0 127.0.0.1:1] "set" "\\x00\\xff" "a\\r\\nb"')).toEqual([
      'set',
      '\x00\xff',
      'a\r\nb',
    ]);
  });

  it('keeps an empty argument', () => {
    expect(parseMonitorLine('+1.0 [0 127.0.0.1:1] "echo" ""')).toEqual(['echo', '']);
  });
});
