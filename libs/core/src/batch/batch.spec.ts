import { batchCallbackPayload, batchProgress, callbacksDue, parseBatchCallbacks } from './batch';

const counts = (succeeded: number, parked = 0, canceled = 0, total = 10) => ({ total, succeeded, parked, canceled });
const both = { onComplete: { queue: 'default' }, onSuccess: { jobType: 'done' } };

describe('batchProgress', () => {
  it('counts every settled run, parked and canceled included, and completes at total', () => {
    expect(batchProgress(counts(3, 1, 1))).toMatchObject({ settled: 5, status: 'open', percent: 50 });
    expect(batchProgress(counts(8, 1, 1))).toMatchObject({ settled: 10, status: 'complete', percent: 100 });
  });

  it('never reads an empty batch as complete, and rounds down (99.9% is not done)', () => {
    expect(batchProgress(counts(0, 0, 0, 0))).toMatchObject({ status: 'open', percent: 0 });
    expect(batchProgress(counts(999, 0, 0, 1000)).percent).toBe(99);
  });
});

describe('callbacksDue', () => {
  it('fires nothing while a run is unsettled', () => {
    expect(callbacksDue(counts(9), both)).toEqual([]);
  });

  it('fires complete and success when every run succeeded', () => {
    expect(callbacksDue(counts(10), both)).toEqual(['complete', 'success']);
  });

  it.each([
    ['one parked', counts(9, 1)],
    ['one canceled', counts(9, 0, 1)],
  ])('fires complete but not success with %s', (_, c) => {
    expect(callbacksDue(c, both)).toEqual(['complete']);
  });

  it('fires only the callbacks the batch has', () => {
    expect(callbacksDue(counts(10), { onSuccess: {} })).toEqual(['success']);
    expect(callbacksDue(counts(9, 1), { onSuccess: {} })).toEqual([]);
    expect(callbacksDue(counts(10), {})).toEqual([]);
  });
});

it('gives the callback the batch id, the counts and the caller payload', () => {
  expect(batchCallbackPayload('bt-1', 'complete', counts(9, 1), { payload: { report: 7 } })).toEqual({
    batch: 'bt-1',
    on: 'complete',
    total: 10,
    succeeded: 9,
    parked: 1,
    canceled: 0,
    payload: { report: 7 },
  });
});

describe('parseBatchCallbacks', () => {
  it('fills in the default queue and keeps the rest', () => {
    expect(parseBatchCallbacks({ onComplete: { jobType: 'report.send', payload: 1 } }, 'default')).toEqual({
      callbacks: { onComplete: { jobType: 'report.send', payload: 1, queue: 'default' } },
    });
  });

  it('names a bad field', () => {
    const res = parseBatchCallbacks({ onSuccess: { queue: 'Bad Queue' }, other: 1 }, 'default');
    expect(res.issues).toEqual([
      expect.stringMatching(/^onSuccess\.queue: is not a queue name/),
      expect.stringMatching(/other/),
    ]);
  });
});
