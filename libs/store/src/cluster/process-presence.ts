import type { ProcessCatalog, ProcessEntry } from './process-catalog.store';

/** How often a process refreshes its catalog entry, and how long the entry outlives a silent process. */
export const PRESENCE_EVERY_MS = 5_000;
export const PRESENCE_TTL_MS = PRESENCE_EVERY_MS * 3;
/** How long a stopping process waits to remove its entry before leaving it to expire. */
const REMOVE_DEADLINE_MS = 1_000;

/**
 * Keeps one process's {@link ProcessCatalog} entry alive: writes it at start and every
 * {@link PRESENCE_EVERY_MS}, removes it on stop (for good: later beats write nothing). `describe` is read at each beat, so a changing
 * field (a scheduler's leadership) shows within one beat, or at once through {@link beat}.
 * A failed write is reported to `onError` and retried at the next beat.
 */
export class ProcessPresence {
  private timer?: NodeJS.Timeout;
  private beating: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly catalog: ProcessCatalog,
    private readonly describe: () => ProcessEntry,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  start(): void {
    if (this.timer || this.stopped) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), PRESENCE_EVERY_MS);
    this.timer.unref();
  }

  beat(): Promise<void> {
    if (this.stopped) return this.beating;
    this.beating = this.beating.then(() =>
      this.catalog.publish(this.describe(), PRESENCE_TTL_MS).catch((err: Error) => this.onError(err)),
    );
    return this.beating;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    // A beat still on its way would write the entry back after the removal.
    await Promise.race([this.beating, new Promise<void>((resolve) => setTimeout(resolve, REMOVE_DEADLINE_MS).unref())]);
    const { role, instanceId } = this.describe();
    // The entry expires by itself within PRESENCE_TTL_MS: with Redis away, shutdown must not wait
    // for the client's retries to give up (an api with nothing in flight exits at once).
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      this.catalog.remove(role, instanceId).catch((err: Error) => this.onError(err)),
      new Promise<void>((resolve) => (deadline = setTimeout(resolve, REMOVE_DEADLINE_MS))),
    ]);
    clearTimeout(deadline);
  }
}
