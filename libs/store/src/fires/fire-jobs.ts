import type { BullQueues } from '../queues/bull-queues';

/** The BullMQ queue that carries fires: never a work queue (a Job Scheduler waits for its previous job). */
export const FIRES_QUEUE = '_fires';

/**
 * Data of a fire job: which routine is due. The slot is in the job id (see {@link fireOfJob});
 * a Job Scheduler's iteration stands for the slot `lagMs` before its time.
 */
export interface FireJobData {
  routine: string;
  lagMs?: number;
}

/** How a fire is retried when its dispatch fails (a fire is cheap to repeat: slot claims dedupe). */
export const FIRE_RETRY = { attempts: 5, backoff: { type: 'fixed', delay: 500 } } as const;

/** Which finished fires BullMQ keeps: a dispatched fire is worth nothing (the run is the record); failed ones are kept, bounded, to debug. */
export const FIRE_KEEP = { removeOnComplete: { count: 0 }, removeOnFail: { count: 1000 } };

/**
 * Options of a fire job added one at a time (a once fire, a refire, a repair). A Job Scheduler's
 * template carries none: BullMQ stores a template's options twice per routine (in the scheduler
 * and in its pending job), and options over 64 bytes turn the scheduler's hash from a compact
 * listpack into a hash table (~550 B instead of ~180 B per routine). The fires consumer applies
 * {@link FIRE_RETRY} to the job it holds and its Worker applies {@link FIRE_KEEP}, so every fire
 * is retried and removed the same, whatever it was added with.
 */
export const FIRE_JOB_OPTS = { ...FIRE_RETRY, ...FIRE_KEEP } as const;

/** What a fire job asks for: dispatch the routine as of `slot`, or (a refire) take over that one revoked slot. */
export interface FireRequest {
  slot: number;
  /** Set for a refire: the revision of the revoked claim to take over. */
  refireOf?: number;
  /** A repair the leader's watchdog asked for. */
  repair?: boolean;
}

/** `repeat:<scheduler>:<millis>` (BullMQ Job Scheduler iterations). */
const REPEAT_ID = /^repeat:(.+):(\d+)$/;
/**
 * `once-<routine>-<at>` (one-shot triggers), `repair-<routine>-<slot>` (watchdog) and
 * `arm-<routine>-<at>` (a schedule just written: see {@link armFireJobId}).
 */
const ONCE_ID = /^(once|repair|arm)-(.+)-(\d+)$/;
/** `refire-<routine>-<slot>-<rev>`. */
const REFIRE_ID = /^refire-(.+)-(\d+)-(\d+)$/;

/** The request a fire job stands for, read from its id (minus the data's lag); undefined for foreign jobs. */
export function fireOfJob(jobId: string | undefined, lagMs = 0): FireRequest | undefined {
  const id = jobId ?? '';
  const refire = REFIRE_ID.exec(id);
  if (refire) return { slot: Number(refire[2]), refireOf: Number(refire[3]) };
  const once = ONCE_ID.exec(id);
  if (once) return { slot: Number(once[3]), ...(once[1] === 'repair' && { repair: true }) };
  const repeat = REPEAT_ID.exec(id);
  return repeat ? { slot: Number(repeat[2]) - lagMs } : undefined;
}

export function onceFireJobId(routine: string, at: number): string {
  return `once-${routine}-${at}`;
}

/**
 * A fire that stands for no slot of its own: dispatched as of `at` (the instant its schedule was
 * written), it catches up what is due by then, as any fire does, and arms the routine's first
 * slots. Without it the first slot of a new schedule waits for its own fire, and a burst of new
 * routines sharing that first slot makes each of those fires also create its run and arm two more.
 */
export function armFireJobId(routine: string, at: number): string {
  return `arm-${routine}-${at}`;
}

export function repairFireJobId(routine: string, slot: number): string {
  return `repair-${routine}-${slot}`;
}

export function refireJobId(routine: string, slot: number, revokedRev: number): string {
  return `refire-${routine}-${slot}-${revokedRev}`;
}

/**
 * Asks the schedulers to decide a revoked slot again (with the routine as it is now) once the slot
 * comes: a fire job any scheduler replica takes. One job per revocation (the id deduplicates).
 */
export async function requestRefire(
  bull: BullQueues,
  routine: string,
  slot: number,
  revokedRev: number,
  delayMs: number,
): Promise<void> {
  await bull.get(FIRES_QUEUE).add('fire', { routine } satisfies FireJobData, {
    ...FIRE_JOB_OPTS,
    jobId: refireJobId(routine, slot, revokedRev),
    delay: Math.max(0, Math.round(delayMs)),
  });
}

/** Asks the schedulers to dispatch an overdue routine now (the leader's watchdog, off its own serial path). */
export async function requestRepair(bull: BullQueues, routine: string, slot: number): Promise<void> {
  await bull
    .get(FIRES_QUEUE)
    .add('fire', { routine } satisfies FireJobData, { ...FIRE_JOB_OPTS, jobId: repairFireJobId(routine, slot) });
}
