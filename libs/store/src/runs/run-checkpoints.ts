import { ScriptCode, withDroverScripts, type DroverKeys, type RedisClient } from '@drover/redis';
import { isRunJobData, type RunJobData } from './run-job-data';

/**
 * The field of a run's job hash that holds its checkpoint (core's `encodeCheckpoint`). A field of
 * its own rather than part of `job.data`: a checkpoint is rewritten many times per attempt and the
 * data is the run's record (its payload with it), which other writers update too (a cancel).
 * BullMQ leaves a field it does not know alone: it stays through retries, a reclaim after a lost
 * lease and a hand-back on shutdown, and goes with the job.
 */
export const CHECKPOINT_FIELD = 'drover:checkpoint';

/**
 * What a checkpoint write does to the run's `job.data`. The first checkpoint of a run also marks
 * its record (`ck: 1`): BullMQ hands a worker only the job fields it knows, so the mark in the data
 * it does hand over is what tells a later attempt that there is a checkpoint to read. Until then
 * no attempt reads anything more than it did.
 */
type DataChange = { kind: 'none' } | { kind: 'mark' } | { kind: 'replace'; data: RunJobData };

/**
 * A run's checkpoint in Redis: written only by the attempt that holds the run (its BullMQ lock
 * token), read by the next attempt of a run whose record carries the mark.
 */
export class RunCheckpoints {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  /**
   * Stores `raw` as the run's checkpoint if `token` still holds the run's lock (one round trip),
   * marking the run's record the first time. `jobData` is the job's data as the attempt holds it:
   * changed in place to what Redis now holds, so the attempt's own later writes of the record keep
   * the mark. False (nothing written) when the attempt no longer holds the run.
   */
  async save(queue: string, id: string, token: string, raw: string, job: { data: unknown }): Promise<boolean> {
    const change = dataChangeOf(job.data);
    const arg = change.kind === 'none' ? '' : change.kind === 'mark' ? '+' : JSON.stringify(change.data);
    const res = await withDroverScripts(this.redis).saveCheckpoint(
      this.keys.bullJob(queue, id),
      this.keys.bullJobLock(queue, id),
      token,
      CHECKPOINT_FIELD,
      raw,
      arg,
    );
    if (res === ScriptCode.StaleToken) return false;
    if (change.kind === 'mark') job.data = { ...(job.data as RunJobData), ck: 1 };
    else if (change.kind === 'replace') job.data = change.data;
    return true;
  }

  /** The run's stored checkpoint, if any (one round trip; only asked for a run whose record carries the mark). */
  async read(queue: string, id: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.bullJob(queue, id), CHECKPOINT_FIELD)) ?? undefined;
  }
}

/**
 * A Drover record is marked in Redis by a text edit of its JSON (no reading back and writing out of
 * the whole record, which a cancel may be writing meanwhile); the data of a job a plain BullMQ
 * producer added becomes a run record holding it as its payload, as on its first failure. Pure.
 */
function dataChangeOf(data: unknown): DataChange {
  if (!isRunJobData(data)) return { kind: 'replace', data: { payload: data, source: 'bullmq', ck: 1 } };
  return data.ck ? { kind: 'none' } : { kind: 'mark' };
}
