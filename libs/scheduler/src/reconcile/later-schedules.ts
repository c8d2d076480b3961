import { nextFire, type Routine, type RoutineRecord } from '@drover/core';
import { DroverKeys, ScriptCode, StaleLeaderError, withDroverScripts, type RedisClient } from '@drover/redis';

/**
 * When the Job Schedulers of `def` must be in BullMQ: undefined for now (its first slot after `now`
 * is within `horizonMs`, or there is none to find), else `horizonMs` before that slot. Only cron and
 * interval schedules wait; a `once` fire is one delayed job, written at once. Pure.
 */
export function writeSchedulesAt(def: Routine, now: number, horizonMs: number): number | undefined {
  const t = def.trigger;
  if (!def.triggers && t?.kind !== 'cron' && t?.kind !== 'interval') return undefined;
  const first = nextFire(def, now);
  return first === undefined || first - now <= horizonMs ? undefined : first - horizonMs;
}

/**
 * Splits a reconcile's writes: a routine never written (nothing of it in BullMQ) whose first slot is
 * beyond the horizon is only entered for later; the rest are written now. Pure.
 */
export function splitLater<W extends { rec: RoutineRecord }>(
  toWrite: W[],
  written: Record<string, string>,
  now: number,
  horizonMs: number,
): { direct: W[]; later: (W & { at: number })[] } {
  const direct: W[] = [];
  const later: (W & { at: number })[] = [];
  for (const item of toWrite) {
    const at = written[item.rec.def.name] ? undefined : writeSchedulesAt(item.rec.def, now, horizonMs);
    if (at === undefined) direct.push(item);
    else later.push({ ...item, at });
  }
  return { direct, later };
}

/**
 * The routines whose Job Schedulers the leader writes later (`{core}:schedules-later`): a BullMQ Job
 * Scheduler costs ~1.4 KB and a script run per routine, which a routine firing next month need not
 * pay today. Scored by when its schedulers are due to be written; every write is fenced.
 */
export class LaterSchedules {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  private get key(): string {
    return this.keys.schedulesLater();
  }

  /** Up to `limit` routines whose schedulers are due by `now`, the earliest first. */
  due(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.key, '-inf', now, 'LIMIT', 0, limit);
  }

  /** Whether the routine's schedulers are left for later (none of them is in BullMQ). */
  async has(name: string): Promise<boolean> {
    return (await this.redis.zscore(this.key, name)) !== null;
  }

  /** Routines with a time set it (left for later), with undefined remove it (written or no longer firing). */
  async put(token: string, entries: [name: string, at: number | undefined][]): Promise<void> {
    if (entries.length === 0) return;
    const res = await withDroverScripts(this.redis).fencedZset(
      this.keys.leader(),
      this.key,
      token,
      ...entries.flatMap(([name, at]) => [name, at ?? '']),
    );
    if (res === ScriptCode.StaleToken) {
      const what = entries.length === 1 ? `routine "${entries[0]![0]}"` : `${entries.length} routines`;
      throw new StaleLeaderError(`the later schedule of ${what}`);
    }
  }
}
