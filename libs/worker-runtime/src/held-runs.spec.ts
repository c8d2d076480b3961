import type { Worker } from 'bullmq';
import { ManualClock } from '@drover/testing';
import { AttemptAbort } from './attempt-abort';
import { JobCanceledError } from './errors/job-canceled.error';
import { WorkerShutdownError } from './errors/worker-shutdown.error';
import { HeldRuns, HOLD_SKEW_MS, START_MARGIN_MS } from './held-runs';

/** The part of BullMQ's Worker HeldRuns touches: its concurrency and the main loop it wakes. */
function fakeWorker(concurrency: number) {
  const wakes: Promise<unknown>[] = [];
  const worker = { concurrency, mainLoopQueue: { add: (p: Promise<unknown>) => wakes.push(p) } };
  return { worker, wakes, asWorker: worker as unknown as Worker };
}

/** Whether `p` has settled (after letting pending callbacks run). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await jest.advanceTimersByTimeAsync(0);
  return done;
}

describe('HeldRuns', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('starts a held run only once the cluster clock has passed its slot, whatever the timer says', async () => {
    const clock = new ManualClock(0);
    const held = new HeldRuns(2, clock, 300 + HOLD_SKEW_MS);
    const hold = held.hold('r', 1_000, new AttemptAbort());
    // The timer runs out, but by the cluster clock (which moved less) the slot is still ahead.
    clock.t = 990;
    await jest.advanceTimersByTimeAsync(1_000 + START_MARGIN_MS);
    expect(await settled(hold)).toBe(false);
    clock.t = 1_000 + START_MARGIN_MS - 1;
    await jest.advanceTimersByTimeAsync(12);
    expect(await settled(hold)).toBe(false);
    clock.t = 1_000 + START_MARGIN_MS;
    await jest.advanceTimersByTimeAsync(1);
    await expect(hold).resolves.toBeUndefined();
  });

  it('holds outside the concurrency, wakes BullMQ to take more, and gives the place back at the start', async () => {
    const clock = new ManualClock(0);
    const { worker, wakes, asWorker } = fakeWorker(2);
    const held = new HeldRuns(2, clock, 1_300, asWorker);
    const a = held.hold('a', 500, new AttemptAbort());
    const b = held.hold('b', 500, new AttemptAbort());
    expect(worker.concurrency).toBe(4);
    expect(wakes).toHaveLength(2);
    clock.t = 600;
    await jest.advanceTimersByTimeAsync(600);
    await Promise.all([a, b]);
    // Still held until they pass the gate.
    expect(worker.concurrency).toBe(4);
    expect(held.enter(true)).toBeUndefined();
    expect(worker.concurrency).toBe(3);
    expect(held.enter(true)).toBeUndefined();
    expect(worker.concurrency).toBe(2);
  });

  it('lets at most `concurrency` attempts through the gate, first come first served', async () => {
    const { worker, asWorker } = fakeWorker(2);
    const clock = new ManualClock(0);
    const held = new HeldRuns(2, clock, 1_300, asWorker);
    const hold = held.hold('h', 0, new AttemptAbort());
    clock.t = START_MARGIN_MS;
    await jest.advanceTimersByTimeAsync(START_MARGIN_MS);
    await hold;
    expect(held.enter(false)).toBeUndefined();
    expect(held.enter(false)).toBeUndefined();
    const third = held.enter(true);
    const fourth = held.enter(false);
    expect(third).toBeInstanceOf(Promise);
    expect(await settled(third!)).toBe(false);
    expect(worker.concurrency).toBe(3);
    held.leave();
    expect(await settled(third!)).toBe(true);
    expect(await settled(fourth!)).toBe(false);
    // The held run passed: BullMQ is back to the queue's concurrency.
    expect(worker.concurrency).toBe(2);
    held.setConcurrency(3);
    expect(await settled(fourth!)).toBe(true);
  });

  it('ends a hold on cancel, and on shutdown ends every hold and holds nothing more', async () => {
    const clock = new ManualClock(0);
    const { worker, asWorker } = fakeWorker(1);
    const held = new HeldRuns(1, clock, 1_300, asWorker);
    const canceled = new AttemptAbort();
    const c = held.hold('c', 800, canceled);
    const d = held.hold('d', 800, new AttemptAbort());
    canceled.abort(new JobCanceledError('operator'));
    await expect(c).rejects.toBeInstanceOf(JobCanceledError);
    held.letGo();
    expect(held.mayHold(800, clock.now())).toBe(true);
    held.releaseAll(new WorkerShutdownError());
    await expect(d).rejects.toBeInstanceOf(WorkerShutdownError);
    held.letGo();
    expect(worker.concurrency).toBe(1);
    expect(held.mayHold(800, clock.now())).toBe(false);
  });

  it('holds a run only within the window; further ahead it goes back to wait', () => {
    const held = new HeldRuns(1, new ManualClock(0), 1_300);
    expect(held.mayHold(1_300, 0)).toBe(true);
    expect(held.mayHold(1_301, 0)).toBe(false);
  });
});
