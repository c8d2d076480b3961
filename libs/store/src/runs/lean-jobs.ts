import { Job, RedisQueueBackend, type Queue } from 'bullmq';
import { withDroverScripts, type LeanJobReply, type RedisClient } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import type { RunJobData } from './run-job-data';

/**
 * Longest value (bytes, as stored) a listing loads from a run's job hash. Longer ones stay in
 * Redis: the payload is dropped from the run's record, a result is left out, the attempt log is
 * cut to its newest entries (see readLeanJobs-n.lua). A page of 1000 runs then loads at most a few
 * such values per run, never a thousand large payloads. GET /runs/{id} reads the run whole.
 */
export const INLINE_CAP_BYTES = 16 * 1024;

/** Job keys per script call: one reply of at most ~100 × a few {@link INLINE_CAP_BYTES}. */
const BATCH = 100;

/** A part of a run a listing left out (or cut) because it is longer than {@link INLINE_CAP_BYTES}. */
export interface OmittedPart {
  /** `payload`, `result`, `errors` (older attempts left out, long texts cut), `progress`, or a flow parent's `children`. */
  field: 'payload' | 'result' | 'errors' | 'progress' | 'error' | 'children';
  /** Its size as stored, bytes (for the payload: about, the size of the record's rest deducted). */
  bytes: number;
}

/** How each name the script reports shows in a run (other fields of the job are not part of it). */
const PART_OF: Record<string, OmittedPart['field']> = {
  payload: 'payload',
  data: 'payload',
  returnvalue: 'result',
  stacktrace: 'errors',
  progress: 'progress',
  failedReason: 'error',
  children: 'children',
};

export interface LeanJob {
  job: Job<RunJobData> & { id: string };
  /** What was left out of it (empty when the whole job was read). */
  omitted: OmittedPart[];
}

/**
 * Builds a `Job` from a raw job hash with BullMQ's own decoding: its backend's `getJobData` (public)
 * reads `HGETALL <job key>` and decodes the hash (whose field names are BullMQ's private business),
 * so it is handed a client whose HGETALL answers the hash already read. If a BullMQ version reads
 * a job some other way, this throws instead of decoding wrongly.
 */
async function decodeJob(queue: Queue, id: string, hash: Record<string, string>): Promise<Job<RunJobData> | undefined> {
  let asked = false;
  const client = {
    hgetall: (key: string) => {
      if (key !== queue.toKey(id)) throw new Error(`BullMQ read job ${id} from an unexpected key ${key}`);
      asked = true;
      return Promise.resolve(hash);
    },
  };
  const json = await RedisQueueBackend.prototype.getJobData.call(
    {
      queue: { client: Promise.resolve(client), toKey: (t: string) => queue.toKey(t) },
    } as unknown as RedisQueueBackend,
    id,
  );
  if (!asked) throw new Error('BullMQ no longer reads a job with HGETALL: lean job reads need updating');
  return json ? (Job.fromJSON(queue, json, id) as Job<RunJobData>) : undefined;
}

function omittedOf(flat: (string | number)[]): OmittedPart[] {
  const out: OmittedPart[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const field = PART_OF[String(flat[i])];
    if (field) out.push({ field, bytes: Number(flat[i + 1]) });
  }
  // In a stable order (the script answers in the hash's own).
  return out.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

/**
 * A record whose payload was left out is still Drover's (isRunJobData looks for the payload's
 * key), and data left out whole is a plain producer's job whose data is its payload.
 */
function keepShape(job: Job, omitted: (string | number)[]): void {
  for (let i = 0; i < omitted.length; i += 2) {
    if (omitted[i] === 'payload') job.data = { ...(job.data as object), payload: undefined };
    else if (omitted[i] === 'data') job.data = undefined;
  }
}

/**
 * Reads jobs of one queue for a listing, with no value longer than {@link INLINE_CAP_BYTES} leaving
 * Redis (one Lua call per hundred jobs; the keys of a queue share a hash slot on Cluster). Answers
 * in the order of `ids`, undefined for a job that is gone.
 */
export async function readLeanJobs(
  redis: RedisClient,
  bull: BullQueues,
  queue: string,
  ids: readonly string[],
  cap = INLINE_CAP_BYTES,
): Promise<(LeanJob | undefined)[]> {
  const q = bull.get(queue);
  const scripts = withDroverScripts(redis);
  const out: (LeanJob | undefined)[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const replies: LeanJobReply[] = await scripts.readLeanJobs(batch.length, ...batch.map((id) => q.toKey(id)), cap);
    for (const [k, [flat, omitted]] of replies.entries()) {
      const hash: Record<string, string> = {};
      for (let f = 0; f + 1 < flat.length; f += 2) hash[flat[f]!] = flat[f + 1]!;
      const job = flat.length ? await decodeJob(q, batch[k]!, hash) : undefined;
      if (job) keepShape(job, omitted);
      out.push(job?.id ? { job: job as Job<RunJobData> & { id: string }, omitted: omittedOf(omitted) } : undefined);
    }
  }
  return out;
}
