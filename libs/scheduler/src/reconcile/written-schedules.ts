import { DroverKeys, ScriptCode, StaleLeaderError, withDroverScripts, type RedisClient } from '@drover/redis';

/**
 * What the leader last wrote to the fires queue per routine (`{core}:scheduler-defs`, the trigger
 * fingerprint): a reconcile writes BullMQ only where a routine's fingerprint differs.
 */
export class WrittenSchedules {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  get key(): string {
    return this.keys.schedulerDefs();
  }

  /** Records what was written for each routine ("" = nothing); refused, as a whole, for a stale leader. */
  async record(token: string, entries: [name: string, fingerprint: string][]): Promise<void> {
    if (entries.length === 0) return;
    const res = await withDroverScripts(this.redis).fencedHset(this.keys.leader(), this.key, token, ...entries.flat());
    if (res === ScriptCode.StaleToken) {
      const what = entries.length === 1 ? `routine "${entries[0]![0]}"` : `${entries.length} routines`;
      throw new StaleLeaderError(`the schedule of ${what}`);
    }
  }
}
