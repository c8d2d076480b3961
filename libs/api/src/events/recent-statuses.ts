import type { RunStatus } from '@drover/core';

/**
 * The last status announced per run, for the newest `capacity` runs (oldest forgotten first):
 * BullMQ reports some transitions twice (`added` then `waiting`), a console wants each once.
 */
export class RecentStatuses {
  private readonly last = new Map<string, RunStatus>();

  constructor(private readonly capacity: number) {}

  /** Records `status` for `id`; true when it differs from the last one recorded. */
  changed(id: string, status: RunStatus): boolean {
    if (this.last.get(id) === status) return false;
    this.last.delete(id); // re-insert: Map order is the eviction order
    this.last.set(id, status);
    if (this.last.size > this.capacity) this.last.delete(this.last.keys().next().value!);
    return true;
  }

  forget(id: string): void {
    this.last.delete(id);
  }
}
