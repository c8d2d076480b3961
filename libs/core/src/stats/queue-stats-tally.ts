import {
  LATENESS_BOUNDS_MS,
  latenessBucket,
  QUEUE_STATS_COUNTERS,
  type QueueObservation,
  type QueueStatsCounter,
} from './queue-stats';

const MINUTE = 60_000;
/** Codes of what is counted: a counter (0-3), then a lateness bucket (4…). */
const LATENESS_CODE = QUEUE_STATS_COUNTERS.length;
const CODES = LATENESS_CODE + LATENESS_BOUNDS_MS.length + 1;

/** One tallied observation: `count` of `obs` in the minute starting at `at` (epoch ms). */
export interface TalliedObservation {
  queue: string;
  at: number;
  obs: QueueObservation;
  count: number;
}

/**
 * Queue observations counted per minute in memory, turned into hash increments only when they are
 * written (see queueStatsIncrements). A minute bucket is the finest any resolution keeps, so counting
 * per minute loses nothing; and a settled run costs two map updates with a number key instead of
 * building each resolution's key and field for every run.
 */
export class QueueStatsTally {
  private counts = new Map<string, Map<number, number>>();

  get size(): number {
    return this.counts.size;
  }

  add(queue: string, at: number, obs: QueueObservation): void {
    let perQueue = this.counts.get(queue);
    if (!perQueue) this.counts.set(queue, (perQueue = new Map()));
    const minute = Math.floor(at / MINUTE) * CODES;
    if (obs.counter) this.bump(perQueue, minute + QUEUE_STATS_COUNTERS.indexOf(obs.counter));
    if (obs.latenessMs !== undefined) this.bump(perQueue, minute + LATENESS_CODE + latenessBucket(obs.latenessMs));
  }

  private bump(perQueue: Map<number, number>, code: number): void {
    perQueue.set(code, (perQueue.get(code) ?? 0) + 1);
  }

  /** Every tallied observation, then an empty tally. */
  drain(): TalliedObservation[] {
    const out: TalliedObservation[] = [];
    for (const [queue, perQueue] of this.counts) {
      for (const [code, count] of perQueue) {
        const at = Math.floor(code / CODES) * MINUTE;
        const what = code % CODES;
        const obs: QueueObservation =
          what < LATENESS_CODE
            ? { counter: QUEUE_STATS_COUNTERS[what] as QueueStatsCounter }
            : { latenessMs: latenessOf(what - LATENESS_CODE) };
        out.push({ queue, at, obs, count });
      }
    }
    this.counts = new Map();
    return out;
  }
}

/** A lateness (ms) that falls in histogram bucket `b`: its upper bound, or past the last one. */
function latenessOf(b: number): number {
  return b < LATENESS_BOUNDS_MS.length
    ? LATENESS_BOUNDS_MS[b]!
    : LATENESS_BOUNDS_MS[LATENESS_BOUNDS_MS.length - 1]! + 1;
}
