import { decodeAttempts, encodeAttempt, type AttemptRecord } from './attempt-log';

describe('the attempt log in BullMQ stacktrace entries', () => {
  const record: AttemptRecord = {
    attempt: 2,
    kind: 'timeout',
    message: 'timed out after 500 ms',
    startedAt: 1_000,
    failedAt: 1_500,
    worker: 'w-1',
  };

  it('round-trips every field', () => {
    expect(decodeAttempts([encodeAttempt(record)])).toEqual([record]);
  });

  it('keeps entries written by someone else as plain errors, numbered by position', () => {
    const foreign = 'Error: boom\n    at x (file.js:1:1)';
    expect(decodeAttempts([encodeAttempt({ ...record, attempt: 1 }), foreign])).toEqual([
      { ...record, attempt: 1 },
      { attempt: 2, kind: 'error', message: 'Error: boom', stack: foreign, failedAt: 0 },
    ]);
  });

  it('survives a missing or malformed log', () => {
    expect(decodeAttempts(null)).toEqual([]);
    expect(decodeAttempts(undefined)).toEqual([]);
    expect(decodeAttempts(['{"drover":1,broken', 42 as unknown as string])).toEqual([
      { attempt: 1, kind: 'error', message: '{"drover":1,broken', stack: '{"drover":1,broken', failedAt: 0 },
    ]);
  });
});
