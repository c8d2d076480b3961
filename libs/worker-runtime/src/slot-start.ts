import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { parseSlotRunId } from '@drover/core';
import { retryWhileRedisFull, type Clock } from '@drover/redis';
import {
  canceledMarker,
  requestRefire,
  type BullQueues,
  type CanceledMarker,
  type RunJobData,
  type SlotClaims,
} from '@drover/store';

/** Why an armed run is not started, as its canceled reason. */
const NOT_STARTED: Record<string, string> = {
  'routine-deleted': 'not started: its routine was deleted before its slot',
  superseded: 'not started: its slot was withdrawn and decided again',
  'routine-changed': 'not started: its routine changed before its slot; the slot is decided again',
  'routine-changed-expired': 'not started: its routine changed before its slot',
  'slot-skipped': 'not started: an operator skipped its slot; the slot is decided again',
};

/**
 * A run handed out further before its slot than this worker holds runs (this machine's clock runs
 * ahead of the cluster's) goes back to wait until the slot (`localSlot`: on this machine's clock,
 * by which BullMQ promotes); the start it used is not an attempt.
 */
export async function sendBackUntilSlot(
  job: Job<RunJobData>,
  token: string | undefined,
  localSlot: number,
): Promise<never> {
  await job.updateData({ ...job.data, interrupts: (job.data.interrupts ?? 0) + 1 });
  await job.moveToDelayed(localSlot, token);
  // Tells BullMQ the job was moved already (it neither completes nor fails it).
  throw new DelayedError();
}

/**
 * A run armed ahead of its slot starts only if its slot's claim still names it and its routine
 * is at the version it was armed for (one script on the claim, atomic with revocations). Else it
 * ends canceled without running, and a slot revoked here is refired so it is decided again with
 * the routine as it is now. Only armed runs pay this round trip, at the slot (after any hold).
 * Still refused by a full Redis after `fullRedis.retryForMs` (the caller gives half the lease): `redis-full`, the run goes
 * back to wait without counting, as at a shutdown.
 */
export async function refuseStaleArm(
  job: Job<RunJobData>,
  deps: { claims: SlotClaims; bull: BullQueues; log: Logger; clock: Clock },
  queue: string,
  fullRedis: { retryForMs: number; interrupted: () => boolean },
): Promise<CanceledMarker | 'redis-full' | undefined> {
  const { claims, bull, log, clock } = deps;
  const data = job.data;
  const slot = parseSlotRunId(job.id!);
  if (!slot || !data.routine || data.av === undefined) return undefined;
  const { av } = data; // a full Redis refuses the check: asked again for a while
  const start = () => claims.startArmed(slot.routine, slot.slotMs, av, slot.rev);
  const verdict = await retryWhileRedisFull(start, fullRedis.retryForMs, fullRedis.interrupted);
  if (verdict === 'start') return undefined;
  if (verdict === 'redis-full') return verdict;
  if (verdict === 'routine-changed' || verdict === 'slot-skipped') {
    await requestRefire(bull, slot.routine, slot.slotMs, slot.rev, slot.slotMs - clock.now());
  }
  log.info({ queue, run: job.id, routine: slot.routine, verdict }, 'armed run not started');
  return canceledMarker(NOT_STARTED[verdict] ?? verdict, clock.now());
}

/**
 * Whether a run's first start counts as fire lateness (its start minus its planned start): not for a
 * buffered run (`buffer-one`), which waited for another run of its routine by design.
 */
export function measuresLateness(data: RunJobData): boolean {
  return data.bb === undefined;
}

/**
 * How late a run's first attempt started (ms): a slot's run against its (planned) start, any other
 * run against when it became due (enqueued, plus its delay). Undefined for a later attempt and for
 * a backfilled slot's run, whose lateness would only say how old its slot was.
 */
export function startLatenessMs(job: Job, data: RunJobData, startedAt: number): number | undefined {
  if (job.attemptsStarted !== 1) return undefined;
  const startAt = data.startAt ?? data.scheduledFor;
  if (startAt != null) return measuresLateness(data) ? startedAt - startAt : undefined;
  return Math.max(0, startedAt - (job.timestamp + (job.delay || 0)));
}
