import { encodeAttempt } from './attempt-log';
import { canceledMarker } from './run-job-data';
import { attemptOf, runFromJob, type JobSnapshot } from './run-view';

function job(over: Partial<JobSnapshot> = {}): JobSnapshot & { id: string } {
  return {
    id: 'r-nightly-1000',
    name: 'http.request',
    data: { routine: 'nightly', source: 'schedule', scheduledFor: 1000, payload: { url: 'x' } },
    opts: { attempts: 3, priority: 2001 },
    timestamp: 1_100,
    attemptsMade: 0,
    attemptsStarted: 0,
    ...over,
  };
}

describe('runFromJob', () => {
  it('maps BullMQ states to run statuses', () => {
    expect(runFromJob('q', job(), 'waiting')?.status).toBe('queued');
    expect(runFromJob('q', job(), 'prioritized')?.status).toBe('queued');
    expect(runFromJob('q', job({ delay: 5000 }), 'delayed')?.status).toBe('scheduled');
    expect(runFromJob('q', job({ attemptsStarted: 1, attemptsMade: 1 }), 'delayed')?.status).toBe('queued');
    expect(runFromJob('q', job({ attemptsStarted: 1, processedOn: 1200 }), 'active')?.status).toBe('running');
    expect(runFromJob('q', job(), 'unknown')).toBeUndefined();
  });

  it('shows a succeeded run with its result, worker and times', () => {
    const view = runFromJob(
      'q',
      job({
        attemptsStarted: 1,
        attemptsMade: 1,
        processedOn: 1_200,
        finishedOn: 1_300,
        returnvalue: { status: 200 },
        processedBy: 'worker-1',
      }),
      'completed',
    )!;
    expect(view).toMatchObject({
      id: 'r-nightly-1000',
      routine: 'nightly',
      jobType: 'http.request',
      queue: 'q',
      source: 'schedule',
      scheduledFor: 1000,
      status: 'succeeded',
      attempt: 1,
      maxAttempts: 3,
      result: { status: 200 },
      worker: 'worker-1',
      createdAt: 1_100,
      startedAt: 1_200,
      finishedAt: 1_300,
      updatedAt: 1_300,
    });
    expect(view.error).toBeUndefined();
  });

  it('shows a completed job carrying the cancel marker as canceled, with its reason', () => {
    const view = runFromJob(
      'q',
      job({ attemptsStarted: 1, attemptsMade: 1, finishedOn: 1_300, returnvalue: canceledMarker('replaced', 1_250) }),
      'completed',
    )!;
    expect(view).toMatchObject({ status: 'canceled', reason: 'replaced', finishedAt: 1_250 });
    expect(view.result).toBeUndefined();
  });

  it('shows a parked run with every attempt error and why it was parked', () => {
    const attempts = [1, 2, 3].map((attempt) =>
      encodeAttempt({ attempt, kind: 'error', message: `boom ${attempt}`, failedAt: 1_000 + attempt }),
    );
    const view = runFromJob(
      'q',
      job({ attemptsStarted: 3, attemptsMade: 3, finishedOn: 2_000, stacktrace: attempts, failedReason: 'boom 3' }),
      'failed',
    )!;
    expect(view.status).toBe('parked');
    expect(view.reason).toBe('attempts-exhausted');
    expect(view.errors?.map((e) => e.message)).toEqual(['boom 1', 'boom 2', 'boom 3']);
    expect(view.error).toEqual({ message: 'boom 3' });
  });

  it('names a permanent error and a lost last lease as park reasons', () => {
    const permanent = encodeAttempt({ attempt: 1, kind: 'invalid-payload', message: 'invalid payload', failedAt: 1 });
    expect(runFromJob('q', job({ attemptsStarted: 1, stacktrace: [permanent] }), 'failed')).toMatchObject({
      reason: 'permanent-error',
      error: { message: 'invalid payload', permanent: true },
    });
    const lost = encodeAttempt({ attempt: 3, kind: 'lease-expired', message: 'lease expired', failedAt: 1 });
    // Parked when the 4th start found the 3rd attempt lost: the view says attempt 3 of 3.
    expect(runFromJob('q', job({ attemptsStarted: 4, attemptsMade: 2, stacktrace: [lost] }), 'failed')).toMatchObject({
      reason: 'lease-expired',
      attempt: 3,
    });
  });

  it('treats an ad-hoc run (no routine, no slot) as null fields', () => {
    const view = runFromJob('q', job({ data: { source: 'api', payload: {} } }), 'waiting')!;
    expect(view).toMatchObject({ routine: null, scheduledFor: null, source: 'api' });
  });
});

describe('attemptOf', () => {
  it('does not count attempts handed back by a graceful shutdown', () => {
    expect(attemptOf({ attemptsStarted: 0, data: { source: 'api', payload: null } })).toBe(0);
    expect(attemptOf({ attemptsStarted: 3, data: { source: 'api', payload: null, interrupts: 1 } })).toBe(2);
  });

  it('shows a job a plain BullMQ producer added as an ad-hoc run whose payload is its data', () => {
    const plain = job({
      id: '7',
      name: 'welcome',
      data: { to: 'ada@example.com', routine: 'not-a-routine' },
      opts: { attempts: 0 },
      attemptsStarted: 1,
      processedOn: 1_200,
    });
    expect(runFromJob('mail', plain, 'active')).toMatchObject({
      id: '7',
      jobType: 'welcome',
      queue: 'mail',
      source: 'bullmq',
      routine: null,
      scheduledFor: null,
      payload: { to: 'ada@example.com', routine: 'not-a-routine' },
      status: 'running',
      attempt: 1,
      maxAttempts: 1,
      createdAt: 1_100,
    });
    // Its attempts as the worker gave them at its first failure.
    const stored = { payload: { to: 'ada@example.com' }, source: 'bullmq', maxAttempts: 3 };
    expect(runFromJob('mail', { ...plain, data: stored, attemptsStarted: 2 }, 'active')).toMatchObject({
      attempt: 2,
      maxAttempts: 3,
    });
  });

  it('dates a retried run from its first attempt, not BullMQ latest one', () => {
    const attempt = (n: number, startedAt: number) =>
      encodeAttempt({ attempt: n, kind: 'error', message: 'boom', startedAt, failedAt: startedAt + 2 });
    const view = runFromJob(
      'q',
      job({
        attemptsStarted: 3,
        attemptsMade: 3,
        processedOn: 2_100,
        finishedOn: 2_103,
        stacktrace: [attempt(1, 1_150), attempt(2, 1_600), attempt(3, 2_100)],
      }),
      'failed',
    )!;
    expect(view).toMatchObject({ status: 'parked', startedAt: 1_150, finishedAt: 2_103 });
  });

  it('never shows a run started before it was created, or finished before it started', () => {
    // createdAt is stamped on the cluster's clock, processedOn/finishedOn on the worker's.
    const view = runFromJob(
      'q',
      job({ timestamp: 1_100, attemptsStarted: 1, attemptsMade: 1, processedOn: 1_098, finishedOn: 1_097 }),
      'completed',
    )!;
    expect(view.startedAt).toBe(1_100);
    expect(view.finishedAt).toBe(1_100);
  });

  it('keeps the attempt log in the same order: an attempt never starts before its run was created', () => {
    const attempt = (startedAt: number) =>
      encodeAttempt({ attempt: 1, kind: 'error', message: 'boom', startedAt, failedAt: startedAt + 1 });
    const view = runFromJob(
      'q',
      job({ timestamp: 1_100, attemptsStarted: 1, attemptsMade: 1, processedOn: 1_097, stacktrace: [attempt(1_097)] }),
      'failed',
    )!;
    expect(view.startedAt).toBe(1_100);
    expect(view.errors![0]).toMatchObject({ startedAt: 1_100, failedAt: 1_100 });
  });
});
