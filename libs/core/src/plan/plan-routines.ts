import { catchUp } from '../policy/catch-up.policy';
import { launchBlocker } from '../policy/launcher.policy';
import { decideOverlap, type OverlapRun } from '../policy/overlap.policy';
import { runIdForSlot } from '../run/run-id';
import { plannedStart } from '../schedule/jitter';
import { nextFire } from '../schedule/next-fire';
import { preemptedSkip } from '../schedule/operator-skip';
import type { SkipReason } from '../policy/skip-reason';
import { compareStrings } from './compare-strings';
import type { PlanResult, PlanState, RoutineState } from './plan.types';

type RoutinePhase = Pick<PlanResult, 'fires' | 'skips' | 'waiting' | 'upcoming'>;

function planRoutine(rs: RoutineState, now: number, queues: Set<string>, out: RoutinePhase): void {
  const { routine } = rs;
  const subject = { kind: 'routine', name: routine.name } as const;
  if (routine.status !== 'active') {
    const p = routine.status === 'paused' ? rs.pause : undefined;
    const detail = [routine.status, p?.by && `by ${p.by}`, p?.note && `"${p.note}"`].filter(Boolean).join(' ');
    out.waiting.push({ subject, reason: 'paused', detail, ...(p?.until !== undefined && { until: p.until }) });
    return;
  }
  if (!queues.has(routine.queue)) {
    out.waiting.push({ subject, reason: 'queue-unknown', detail: routine.queue });
    return;
  }
  const next = nextFire(routine, now);
  const startOf = (slot: number) => plannedStart(routine, slot);
  if (next !== undefined) {
    const start = startOf(next);
    out.upcoming.push({ routine: routine.name, at: next, ...(start > next && { start }) });
  }
  const blocker = launchBlocker(rs.launcher, now);
  if (blocker) {
    out.waiting.push({ subject, ...blocker });
    return;
  }
  const cu = catchUp({
    trigger: routine,
    lastSlot: rs.lastSlot,
    now,
    policy: routine.catchUpPolicy,
    maxCatchUp: routine.maxCatchUp,
    ...(routine.startingDeadlineMs !== undefined && { startingDeadlineMs: routine.startingDeadlineMs }),
    misfireGraceMs: routine.misfireGraceMs,
    startOf,
  });
  // An excluded or operator-skipped slot is recorded so whatever catch-up made of it (see slot-decider).
  const preempted = (slot: number): SkipReason | undefined => {
    const why = preemptedSkip(routine, slot, rs.skips);
    return why === undefined ? undefined : (why.split(':', 1)[0] as SkipReason);
  };
  const skips = cu.skip.map((s) => ({ routine: routine.name, ...s, reason: preempted(s.slot) ?? s.reason }));
  const runs: OverlapRun[] = [...(rs.runs ?? [])];
  let blockedNoted = false;
  for (const f of cu.fire) {
    const pre = preempted(f.slot);
    if (pre) {
      skips.push({ routine: routine.name, slot: f.slot, reason: pre });
      continue;
    }
    const runId = runIdForSlot(routine.name, f.slot);
    const overlap = decideOverlap(routine.concurrencyPolicy, runs);
    if (overlap.action === 'skip') {
      skips.push({ routine: routine.name, slot: f.slot, reason: overlap.reason });
      const what = overlap.reason === 'overlap-buffer-full' ? 'buffered, waiting' : 'active';
      if (!blockedNoted)
        out.waiting.push({ subject, reason: 'overlap', detail: `${what}: ${overlap.blockingRunIds.join(', ')}` });
      blockedNoted = true;
      continue;
    }
    const cancel = overlap.action === 'replace' ? overlap.cancelRunIds : [];
    const behind = overlap.action === 'buffer' ? overlap.behindRunIds : undefined;
    const start = startOf(f.slot);
    out.fires.push({
      routine: routine.name,
      queue: routine.queue,
      slot: f.slot,
      source: f.source,
      runId,
      cancel,
      ...(behind && { behind }),
      ...(start > f.slot && { start }),
    });
    if (cancel.length > 0) runs.splice(0, runs.length);
    // A buffered run waits (scheduled) until the runs it is behind end: a later slot finds the buffer full.
    runs.push(
      behind ? { id: runId, status: 'scheduled', bufferedBehind: behind[0]! } : { id: runId, status: 'queued' },
    );
  }
  out.skips.push(...skips.sort((a, b) => a.slot - b.slot));
}

/**
 * Routine phase of `plan`: for each routine (by name) the due fires after catch-up, launcher and overlap
 * policy; skipped slots; why a routine waits; and its next fire after `now` (epoch ms). Pure.
 */
export function planRoutines(state: PlanState, now: number): RoutinePhase {
  const out: RoutinePhase = { fires: [], skips: [], waiting: [], upcoming: [] };
  const queues = new Set(state.queues.map((q) => q.queue.name));
  const routines = [...state.routines].sort((a, b) => compareStrings(a.routine.name, b.routine.name));
  for (const rs of routines) planRoutine(rs, now, queues, out);
  return out;
}
