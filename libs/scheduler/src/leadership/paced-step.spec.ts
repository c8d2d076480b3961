import { pacedStep } from './paced-step';

/** The leader's one-at-a-time queue, as `SchedulerLeaderService.serial` keeps it. */
function serialQueue(): (run: () => Promise<void>) => Promise<void> {
  let chain = Promise.resolve();
  return (run) => (chain = chain.then(run).catch(() => undefined));
}

describe('pacedStep', () => {
  let now = 0;
  let timer: NodeJS.Timeout | undefined;

  beforeEach(() => {
    jest.useFakeTimers();
    now = 0;
  });

  afterEach(() => {
    clearInterval(timer);
    jest.useRealTimers();
  });

  it('pauses a step for nine times its own run, not its wait behind a long step', async () => {
    const serial = serialQueue();
    let release!: () => void;
    // A full reconcile holding the queue for 10 s of the clock.
    void serial(() => new Promise<void>((r) => (release = () => ((now += 10_000), r()))));
    let runs = 0;
    timer = pacedStep(
      1_000,
      serial,
      async () => {
        runs++;
        now += 100;
      },
      () => now,
    );
    await jest.advanceTimersByTimeAsync(1_000); // queued behind the long step
    expect(runs).toBe(0);
    release();
    await jest.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    // 100 ms of its own: not again within 900 ms of its end, then again.
    now += 800;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    now += 200;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
  });

  it('never queues a step again while it is still pending', async () => {
    const serial = serialQueue();
    let release!: () => void;
    let runs = 0;
    timer = pacedStep(
      1_000,
      serial,
      () => {
        runs++;
        return new Promise<void>((r) => (release = r));
      },
      () => now,
    );
    await jest.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(1);
    release();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
  });

  it('paces a step that failed like one that succeeded', async () => {
    let runs = 0;
    timer = pacedStep(
      1_000,
      serialQueue(),
      () => {
        runs++;
        now += 1_000;
        return Promise.reject(new Error('failed for the test'));
      },
      () => now,
    );
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    now += 8_000; // 9 s after its end it may run again, not before
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    now += 1_000;
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
  });
});
