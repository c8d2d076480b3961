import type { ChainableCommander } from 'ioredis';
import type { DroverKeys, RedisClient } from '@drover/redis';

/** Newest runs kept per routine for listing (older ones still exist until retention removes them). */
export const RECENT_RUNS_KEPT = 1000;
/**
 * Bound on a routine's open-run candidates. Runs of `allow` routines are not listed (nothing reads
 * them; see the run maker's `tracksOpenRuns`) and the fires of the others prune the list, so only
 * replays of an `allow` routine's runs (listed: a replay has no definition at hand) ever reach it.
 */
export const OPEN_RUNS_KEPT = 1000;

/** A run reference in an index: which queue holds run `id`. */
export interface RunRef {
  queue: string;
  id: string;
  createdAt: number;
}

// Queue names never contain ':', so the first ':' splits a member unambiguously.
const member = (queue: string, id: string) => `${queue}:${id}`;

function parse(raw: string, score: string): RunRef {
  const at = raw.indexOf(':');
  return { queue: raw.slice(0, at), id: raw.slice(at + 1), createdAt: Number(score) };
}

function pairs(flat: string[]): RunRef[] {
  const out: RunRef[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push(parse(flat[i]!, flat[i + 1]!));
  return out;
}

/**
 * Two small sorted sets per routine (score = creation time): `recent` (newest
 * {@link RECENT_RUNS_KEPT}, for listing) and `open` (runs that may still be queued or running).
 * `open` is a candidate list, not the truth: readers check each candidate's real state and drop
 * finished ones, so a worker never spends a write on it when a run ends.
 */
export class RunIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  recentKey(routine: string): string {
    return this.keys.routineRuns(routine);
  }

  openKey(routine: string): string {
    return this.keys.routineOpen(routine);
  }

  /** Adds a run to the routine's indexes (`open` unless it never runs, e.g. skipped). */
  add(pipe: ChainableCommander, routine: string, ref: RunRef, open: boolean): ChainableCommander {
    const m = member(ref.queue, ref.id);
    pipe.zadd(this.recentKey(routine), 'NX', ref.createdAt, m);
    pipe.zremrangebyrank(this.recentKey(routine), 0, -(RECENT_RUNS_KEPT + 1));
    if (open) {
      pipe.zadd(this.openKey(routine), 'NX', ref.createdAt, m);
      pipe.zremrangebyrank(this.openKey(routine), 0, -(OPEN_RUNS_KEPT + 1));
    }
    return pipe;
  }

  /** Newest first. */
  async recent(routine: string, offset: number, count: number): Promise<RunRef[]> {
    return pairs(await this.redis.zrevrange(this.recentKey(routine), offset, offset + count - 1, 'WITHSCORES'));
  }

  async openCandidates(routine: string): Promise<RunRef[]> {
    return pairs(await this.redis.zrange(this.openKey(routine), '0', '-1', 'WITHSCORES'));
  }

  async dropOpen(routine: string, refs: RunRef[]): Promise<void> {
    if (refs.length) await this.redis.zrem(this.openKey(routine), ...refs.map((r) => member(r.queue, r.id)));
  }
}
