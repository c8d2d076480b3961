import type { Worker } from 'bullmq';
import type { Clock } from '@drover/redis';
import type { AttemptAbort } from './attempt-abort';

/**
 * How far past its slot (ms, cluster time) a held run starts. The cluster clock is this machine's
 * clock plus an offset rounded to the millisecond, so a start at the slot itself could reach a
 * receiver on the same clock a millisecond early.
 */
export const START_MARGIN_MS = 2;

/** How much further ahead than the lead a run is still held here: clocks that disagree a little. */
export const HOLD_SKEW_MS = 1_000;

/** Runs held at once beyond the queue's concurrency, per queue and process (more wait inside it). */
export const MAX_HELD = 1_000;

/** The part of BullMQ's Worker that is woken when its concurrency grows (see {@link HeldRuns.wake}). */
interface MainLoop {
  mainLoopQueue?: { add(p: Promise<unknown>): void } | null;
}

/**
 * The runs of one queue that a worker took ahead of their slot, and the gate every attempt passes
 * before its handler starts.
 *
 * A held run is active in BullMQ and locked by this worker (its lease, renewed by BullMQ while the
 * processor runs; a crash leaves it to the stalled-job check). It does not count against the
 * queue's `concurrency`: while runs are held, BullMQ's Worker may take that many more (up to
 * {@link MAX_HELD}). At its slot a held run passes the gate like any other attempt, and the gate
 * lets at most `concurrency` handlers run at once, so the ceiling holds however many were held.
 */
export class HeldRuns {
  /** Runs held, from their hold until they pass the gate (or are let go). */
  private held = 0;
  /** Attempts past the gate. */
  private running = 0;
  private readonly waiting: { wasHeld: boolean; go: () => void }[] = [];
  private readonly holds = new Map<string, AttemptAbort>();
  private draining = false;

  constructor(
    private concurrency: number,
    private readonly clock: Clock,
    /** How far ahead of its slot (cluster time) a run is held here rather than sent back to wait. */
    readonly windowMs: number,
    private worker?: Worker,
  ) {}

  attach(worker: Worker): void {
    this.worker = worker;
  }

  setConcurrency(concurrency: number): void {
    this.concurrency = concurrency;
    this.sync();
    this.admit();
  }

  /** Whether a run of slot `slot`, taken now, may wait here for it (else it goes back to wait). */
  mayHold(slot: number, now: number): boolean {
    return !this.draining && slot - now <= this.windowMs;
  }

  /**
   * Waits until the slot (cluster time, plus {@link START_MARGIN_MS}) or until `abort` fires
   * (cancel, lease lost, shutdown). The run then counts as held until it passes {@link enter}
   * or {@link letGo} is called.
   */
  async hold(id: string, slot: number, abort: AttemptAbort): Promise<void> {
    this.held++;
    this.holds.set(id, abort);
    this.sync();
    this.wake();
    try {
      const aborted = abort.whenAborted();
      aborted.catch(() => undefined);
      // A timer may fire a little early by the cluster clock (the offset moved, or the timer's
      // own rounding): the run starts only once the clock says the slot has passed.
      for (let left = slot + START_MARGIN_MS - this.clock.now(); left > 0 && !abort.reason;) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([new Promise((r) => (timer = setTimeout(r, left))), aborted]).finally(() =>
          clearTimeout(timer),
        );
        left = slot + START_MARGIN_MS - this.clock.now();
      }
      if (abort.reason) throw abort.reason;
    } finally {
      this.holds.delete(id);
    }
  }

  /** A held run that will not start here (aborted while held). */
  letGo(): void {
    this.held--;
    this.sync();
  }

  /**
   * Takes a place among the running attempts: at once (undefined) while fewer than `concurrency`
   * run, else a promise resolved when one ends, first come first served.
   */
  enter(wasHeld: boolean): Promise<void> | undefined {
    if (this.running < this.concurrency && this.waiting.length === 0) {
      this.running++;
      if (wasHeld) this.unhold();
      return undefined;
    }
    return new Promise<void>((go) => this.waiting.push({ wasHeld, go }));
  }

  /** An attempt past the gate ended. */
  leave(): void {
    this.running--;
    this.admit();
  }

  /** Shutdown: every held run is let go at once (it goes back to its queue and starts elsewhere). */
  releaseAll(reason: Error): void {
    this.draining = true;
    for (const abort of this.holds.values()) abort.abort(reason);
  }

  private admit(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      this.running++;
      if (next.wasHeld) this.unhold();
      next.go();
    }
  }

  private unhold(): void {
    this.held--;
    this.sync();
  }

  /** BullMQ's Worker takes up to `concurrency` runs plus those held here. */
  private sync(): void {
    if (this.worker) this.worker.concurrency = this.concurrency + Math.min(this.held, MAX_HELD);
  }

  /**
   * BullMQ's main loop sleeps while it has `concurrency` jobs in hand; a grown concurrency is only
   * seen once it wakes. An already settled promise wakes it — what BullMQ's own `resume()` does.
   */
  private wake(): void {
    (this.worker as unknown as MainLoop | undefined)?.mainLoopQueue?.add(Promise.resolve());
  }
}
