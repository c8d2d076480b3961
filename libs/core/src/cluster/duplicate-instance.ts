/**
 * Tells a second live process with this process's DROVER_INSTANCE_ID apart from the leftover of
 * an earlier start of the same id (a crash, a kill -9), from what is found where this process
 * keeps writing its own start nonce (a key refreshed on every heartbeat or lease tick).
 *
 * What the first write finds proves nothing: an earlier start's key outlives it until its TTL.
 * A foreign nonce found by any later write does: someone wrote it after this process did, so a
 * process with the same id is alive now. Each such process is reported once.
 */
export class DuplicateInstanceWatch {
  private wrote = false;
  private readonly reported = new Set<string>();

  constructor(readonly nonce: string) {}

  /**
   * Records one write of this process's nonce; `found` is what the key held just before it (null
   * or undefined: nothing). Returns the other process's nonce when that proves a live duplicate
   * not reported yet, else undefined.
   */
  observe(found: string | null | undefined): string | undefined {
    const first = !this.wrote;
    this.wrote = true;
    if (first || !found || found === this.nonce || this.reported.has(found)) return undefined;
    this.reported.add(found);
    return found;
  }
}
