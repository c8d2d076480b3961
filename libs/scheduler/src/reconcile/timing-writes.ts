import { nextFire, slotBounds, type Routine, type Trigger } from '@drover/core';
import { fireOfJob, onceFireJobId } from '@drover/store';
import { fireLagMs, schedulerId } from '../fires/fire-job';
import type { FiresQueue } from '../fires/fires-queue.provider';

/**
 * Upserts the Job Scheduler of the routine's trigger `index`; answers the slot of its first fire
 * (read from the job BullMQ made: computing it again would cost a cron search per routine).
 */
export async function upsertScheduler(
  fires: FiresQueue,
  now: number,
  def: Routine,
  index: number,
  t: Trigger,
): Promise<number | undefined> {
  // No options: the fires consumer applies them (see FIRE_JOB_OPTS); each byte is stored per routine.
  const template = { name: 'fire', data: { routine: def.name } };
  const id = schedulerId(def.name, index);
  // startAt/endAt: BullMQ starts and ends the Job Scheduler there (the dispatcher's catch-up
  // never sees a slot outside them either); once spent, the reconciler removes it.
  const bounds = slotBounds(def);
  const endDate = bounds?.endMs === undefined ? {} : { endDate: bounds.endMs + fireLagMs(def) + 1 };
  if (t.kind === 'cron') {
    const startDate = bounds?.startMs === undefined ? {} : { startDate: bounds.startMs };
    const job = await fires.upsertJobScheduler(
      id,
      { pattern: t.cron, tz: t.tz ?? 'UTC', ...startDate, ...endDate },
      template,
    );
    return fireOfJob(job?.id)?.slot;
  }
  if (t.kind === 'interval') {
    // BullMQ anchors `every` at the first iteration; starting it on a grid slot keeps the grid.
    const lagMs = fireLagMs(def);
    const from = Math.max(now, (bounds?.startMs ?? -Infinity) - 1);
    const startDate = nextFire(t, from)! + lagMs;
    const data = lagMs ? { routine: def.name, lagMs } : template.data;
    const job = await fires.upsertJobScheduler(id, { every: t.everyMs, startDate, ...endDate }, { ...template, data });
    return fireOfJob(job?.id, lagMs)?.slot;
  }
  return undefined;
}

/** Removes the pending fire of a `once` trigger written as `fingerprint` (not one being dispatched). */
export async function removeOnce(fires: FiresQueue, name: string, fingerprint: string): Promise<void> {
  const at = Number(fingerprint.split('|')[1]);
  const job = await fires.getJob(onceFireJobId(name, at));
  if (job && !(await job.isActive())) await job.remove().catch(() => undefined);
}
