import { isRunJobData, runJobDataOf } from './run-job-data';

describe("telling Drover's run records from a plain BullMQ producer's job data", () => {
  it.each([
    [{ payload: { x: 1 } }, true],
    [{ payload: null, source: 'schedule', routine: 'nightly', scheduledFor: 1000, av: 3 }, true],
    [{ payload: 'x', cancel: { reason: 'r', at: 1 }, interrupts: 1, maxAttempts: 3, source: 'bullmq' }, true],
    // What `queue.add(name, data)` stores: any JSON, Drover's field names included.
    [{ to: 'ada@example.com' }, false],
    [{ payload: { x: 1 }, to: 'ada@example.com' }, false],
    [{ routine: 'nightly', scheduledFor: 1000 }, false],
    [{}, false],
    [[{ payload: 1 }], false],
    ['text', false],
    [42, false],
    [null, false],
  ])('%j is a run record: %s', (data, expected) => {
    expect(isRunJobData(data)).toBe(expected);
  });

  it("makes a plain job's data the payload of an ad-hoc run of source bullmq", () => {
    expect(runJobDataOf({ to: 'ada@example.com' })).toEqual({ payload: { to: 'ada@example.com' }, source: 'bullmq' });
    expect(runJobDataOf('text')).toEqual({ payload: 'text', source: 'bullmq' });
    const record = { payload: { x: 1 }, source: 'manual' as const };
    expect(runJobDataOf(record)).toBe(record);
  });
});
