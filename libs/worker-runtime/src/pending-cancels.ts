import type { Clock } from '@drover/redis';
import type { RunJobData } from '@drover/store';

/**
 * Cancel requests for runs this process does not hold (yet): a run that was just fetched but has
 * not started its handler is not tracked by BullMQ, so the request is remembered for a while
 * and checked when an attempt starts. Bounded in time and size.
 */
export class PendingCancels {
  private readonly byId = new Map<string, { reason: string; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
    private readonly max = 10_000,
  ) {}

  add(id: string, reason: string): void {
    const now = this.clock.now();
    if (this.byId.size >= this.max) {
      for (const [k, v] of this.byId) if (v.until <= now || this.byId.size >= this.max) this.byId.delete(k);
    }
    this.byId.set(id, { reason, until: now + this.ttlMs });
  }

  /** The reason if a live request exists (and forgets it). */
  take(id: string): string | undefined {
    if (this.byId.size === 0) return undefined;
    const hit = this.byId.get(id);
    if (!hit) return undefined;
    this.byId.delete(id);
    return hit.until > this.clock.now() ? hit.reason : undefined;
  }

  get size(): number {
    return this.byId.size;
  }
}

/** The cancel reason recorded in a job's stored data, if any. */
export function cancelOf(rawData: string | null | undefined): string | undefined {
  if (!rawData) return undefined;
  try {
    return (JSON.parse(rawData) as Partial<RunJobData>).cancel?.reason;
  } catch {
    return undefined;
  }
}
