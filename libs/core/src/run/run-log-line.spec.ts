import { formatRunLogLine, parseRunLogLine, RUN_LOG_TRUNCATED } from './run-log-line';

const T = 1_764_145_000_000;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('run log lines', () => {
  it('stores a line as compact JSON and reads it back', () => {
    const raw = formatRunLogLine(3, T, 'fetched', { rows: 200 });
    expect(raw).toBe(`{"n":3,"t":${T},"msg":"fetched","f":{"rows":200}}`);
    expect(parseRunLogLine(raw)).toEqual({ seq: 3, at: T, message: 'fetched', fields: { rows: 200 } });
    expect(parseRunLogLine(formatRunLogLine(1, T, 'plain'))).toEqual({ seq: 1, at: T, message: 'plain' });
  });

  it('reads a line a plain BullMQ job.log wrote as its message', () => {
    expect(parseRunLogLine('hello')).toEqual({ message: 'hello' });
    expect(parseRunLogLine('{"not":"ours"}')).toEqual({ message: '{"not":"ours"}' });
    expect(parseRunLogLine('{broken')).toEqual({ message: '{broken' });
  });

  it('drops fields that do not fit, then cuts the message and marks it', () => {
    const big = { blob: 'x'.repeat(5000) };
    const withoutFields = parseRunLogLine(formatRunLogLine(1, T, 'short', big, 256));
    expect(withoutFields).toEqual({ seq: 1, at: T, message: 'short', fields: { truncated: true } });

    const raw = formatRunLogLine(2, T, 'y'.repeat(5000), undefined, 256);
    expect(bytes(raw)).toBeLessThanOrEqual(256);
    const line = parseRunLogLine(raw);
    expect(line.message.endsWith(RUN_LOG_TRUNCATED)).toBe(true);
    expect(line.message.length).toBeGreaterThan(150);
  });

  it('cuts on a character boundary and within the cap even when JSON escapes grow the message', () => {
    for (const ch of ['é', '😀', '"', '\n', '\u0001']) {
      const raw = formatRunLogLine(9, T, ch.repeat(3000), undefined, 300);
      expect(bytes(raw)).toBeLessThanOrEqual(300);
      const { message } = parseRunLogLine(raw);
      expect(message).not.toContain('\uFFFD');
      expect(message.endsWith(RUN_LOG_TRUNCATED)).toBe(true);
    }
  });

  it('leaves out fields that do not serialise instead of throwing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(parseRunLogLine(formatRunLogLine(1, T, 'x', cyclic)).fields).toEqual({ truncated: true });
    expect(parseRunLogLine(formatRunLogLine(1, T, 'x', { n: 10n })).fields).toEqual({ truncated: true });
  });
});
