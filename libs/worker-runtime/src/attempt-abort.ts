/**
 * The abort state of one running attempt. Its AbortSignal is created only when a handler reads
 * it, and the attempt settles through a plain callback instead of a listener on the signal:
 * an AbortController plus an EventTarget listener per job cost more than the rest of Drover's
 * per-job work together, and many handlers never look at the signal.
 */
export class AttemptAbort {
  private controller?: AbortController;
  private settle?: (reason: Error) => void;
  /** Why the attempt was aborted (timeout, cancel, shutdown, lease loss); unset while it runs. */
  reason?: Error;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
    this.settle?.(reason);
  }

  /** Rejects with the reason as soon as the attempt is aborted. */
  whenAborted(): Promise<never> {
    return new Promise<never>((_, reject) => {
      if (this.reason) reject(this.reason);
      else this.settle = reject;
    });
  }
}
