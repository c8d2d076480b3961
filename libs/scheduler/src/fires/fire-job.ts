import type { Routine, Trigger } from '@drover/core';

/** The BullMQ queue that carries fires: never a work queue (a Job Scheduler waits for its previous job). */
export const FIRES_QUEUE = '_fires';

/**
 * Data of a fire job: which routine is due. The slot is the job's scheduled time minus `lagMs`
 * (see `fireLagMs`).
 */
export interface FireJobData {
  routine: string;
  lagMs?: number;
}

/**
 * How long after its slot an interval routine's fire is delivered. A routine whose runs are
 * armed ahead (see `armableSlot`) does not need its fire at the slot: the fire only arms the
 * next run. Delivering it half an interval later (at most 500 ms) keeps that burst of
 * dispatch work away from the instant the armed runs start. Pure.
 */
export function fireLagMs(def: Routine): number {
  const t = def.trigger;
  if (t.kind !== 'interval' || def.status !== 'active' || def.concurrencyPolicy !== 'allow' || def.condition) return 0;
  return Math.min(Math.floor(t.everyMs / 2), 500);
}

/** Prefix of job ids BullMQ gives Job Scheduler iterations: `repeat:<schedulerId>:<millis>`. */
const REPEAT_ID = /^repeat:(.+):(\d+)$/;
/** Prefix of our one-shot fire job ids: `once-<routine>-<at>`. */
const ONCE_ID = /^once-(.+)-(\d+)$/;

/** The slot (epoch ms) a fire job stands for, read from its id; undefined for foreign jobs. */
export function slotOfFireJob(jobId: string | undefined): number | undefined {
  const m = REPEAT_ID.exec(jobId ?? '') ?? ONCE_ID.exec(jobId ?? '');
  return m ? Number(m[2]) : undefined;
}

export function onceFireJobId(routine: string, at: number): string {
  return `once-${routine}-${at}`;
}

/**
 * A stable fingerprint of what a routine's Job Scheduler depends on. Only the trigger matters:
 * payload, priority and policies are read at fire time, so editing them writes no scheduler.
 */
export function schedulerFingerprint(trigger: Trigger, lagMs = 0): string {
  switch (trigger.kind) {
    case 'cron':
      return `cron|${trigger.cron}|${trigger.tz ?? 'UTC'}`;
    case 'interval':
      return `every|${trigger.everyMs}|${trigger.offsetMs ?? 0}${lagMs ? `|lag ${lagMs}` : ''}`;
    case 'once':
      return `once|${Date.parse(trigger.at)}`;
    case 'manual':
      return 'manual';
  }
}
