import type { Origin, Routine, RoutineRecord } from '@drover/core';
import type { DroverKeys, RedisClient } from '@drover/redis';
import { encodeRecord, encodeState } from './routine-record';

/** Changes the change log keeps (the routine scripts trim it alike): a reader further behind makes a full pass. */
export const CHANGE_LOG_SIZE = 10_000;

/**
 * Creates many routines that do not exist yet in a few round trips (bulk import, benchmarks).
 * Existing names are left untouched and reported back. Each one created is put in the watchdog's
 * index at 0, counted per status and logged as changed, as a single write's script does, but in
 * pipelines rather than one script: a crash half-way leaves the index short, which the next
 * leader's check on election finds (its size is not the number of routines) and rebuilds.
 */
export async function createRoutines(
  redis: RedisClient,
  keys: DroverKeys,
  defs: Routine[],
  origin: Origin,
  now: number,
): Promise<{ created: string[]; existing: string[] }> {
  const created: string[] = [];
  const existing: string[] = [];
  for (let i = 0; i < defs.length; i += 1000) {
    const chunk = defs.slice(i, i + 1000);
    const pipe = redis.pipeline();
    for (const def of chunk) {
      const record: RoutineRecord = { def, origin, createdAt: now, updatedAt: now, version: 1 };
      pipe.hsetnx(keys.routines(), def.name, encodeRecord(record));
    }
    const res = (await pipe.exec()) ?? [];
    const fresh = chunk.filter((_, j) => Number(res[j]?.[1]) === 1);
    existing.push(...chunk.filter((_, j) => Number(res[j]?.[1]) !== 1).map((d) => d.name));
    if (fresh.length === 0) continue;
    created.push(...fresh.map((d) => d.name));
    const rest = redis.pipeline();
    for (const d of fresh) rest.hset(keys.routineState(d.name), encodeState({ since: now, version: 1 }));
    rest.zadd(keys.routineDue(), ...fresh.flatMap((d) => [0, d.name]));
    for (const d of fresh) rest.hincrby(keys.routineCounts(), d.status, 1);
    rest.incrby(keys.routineChangeSeq(), fresh.length);
    const out = (await rest.exec()) ?? [];
    // The changes are numbered up to the count just reached, one per routine.
    const last = Number(out.at(-1)?.[1]);
    await redis.zadd(keys.routineChangeLog(), ...fresh.flatMap((d, j) => [last - fresh.length + 1 + j, d.name]));
    await redis.zremrangebyscore(keys.routineChangeLog(), '-inf', last - CHANGE_LOG_SIZE);
  }
  if (created.length) await redis.publish(keys.routinesChanged(), '*');
  return { created, existing };
}
