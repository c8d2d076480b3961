import type { Routine } from '../model/routine.schema';
import { compareWork, isManualSource, priorityValue, type WorkItem } from '../policy/priority.policy';
import { compareStrings } from './compare-strings';
import type { PlannedFire, PlanResult, PlanState, QueueState } from './plan.types';

type QueuePhase = Pick<PlanResult, 'starts' | 'waiting'>;
type Candidate = WorkItem & { routine: string | null; fromFire: boolean };

/** Capacity left in a queue: `min(globalConcurrency, concurrency × workers) − running`, never below 0. */
export function queueCapacity(qs: QueueState): number {
  const ceilings = [
    qs.queue.globalConcurrency ?? Infinity,
    qs.workers === undefined ? Infinity : qs.queue.concurrency * qs.workers,
  ];
  return Math.max(0, Math.min(...ceilings) - Math.max(0, qs.running));
}

function planQueue(
  qs: QueueState,
  fires: PlannedFire[],
  routines: Map<string, Routine>,
  ctx: { now: number; depthWeight: number },
  out: QueuePhase,
): void {
  const queue = qs.queue.name;
  const canceled = new Set(fires.flatMap((f) => f.cancel));
  const shape = (routine: string | null) => {
    const r = routine === null ? undefined : routines.get(routine);
    return {
      ...(r?.depth !== undefined && { depth: r.depth }),
      ...(r?.emphasis !== undefined && { emphasis: r.emphasis }),
    };
  };
  const ready: Candidate[] = [];
  for (const run of qs.waiting) {
    if (canceled.has(run.id)) continue;
    const readyAt = Math.max(run.scheduledFor, run.nextAttemptAt ?? -Infinity);
    if (readyAt > ctx.now) {
      const reason = run.nextAttemptAt !== undefined && run.nextAttemptAt > ctx.now ? 'backing-off' : 'not-yet-due';
      out.waiting.push({ subject: { kind: 'run', id: run.id, queue }, reason, until: readyAt });
      continue;
    }
    const priority =
      run.priority ?? priorityValue(run.routine === null ? undefined : routines.get(run.routine)?.priority);
    ready.push({
      id: run.id,
      routine: run.routine,
      manual: isManualSource(run.source),
      priority,
      readyAt,
      fromFire: false,
      ...shape(run.routine),
    });
  }
  for (const f of fires) {
    // A jittered run is created at once but starts at its planned start.
    if (f.start !== undefined && f.start > ctx.now) {
      out.waiting.push({ subject: { kind: 'run', id: f.runId, queue }, reason: 'not-yet-due', until: f.start });
      continue;
    }
    const priority = priorityValue(routines.get(f.routine)?.priority);
    ready.push({
      id: f.runId,
      routine: f.routine,
      manual: false,
      priority,
      readyAt: f.start ?? f.slot,
      fromFire: true,
      ...shape(f.routine),
    });
  }
  for (const id of [...(qs.parked ?? [])].sort(compareStrings))
    out.waiting.push({ subject: { kind: 'run', id, queue }, reason: 'parked' });
  ready.sort(compareWork(ctx.now, ctx.depthWeight));
  const capacity = qs.paused ? 0 : queueCapacity(qs);
  const full = qs.paused ? 'queue-paused' : qs.workers === 0 ? 'no-workers' : 'ceiling-reached';
  ready.forEach((c, i) => {
    if (i < capacity) out.starts.push({ runId: c.id, queue, routine: c.routine, fromFire: c.fromFire });
    else out.waiting.push({ subject: { kind: 'run', id: c.id, queue }, reason: full });
  });
}

/**
 * Queue phase of `plan`: per queue (by name), the ready runs and new fires in priority order (`compareWork`);
 * the first `queueCapacity` start, the rest wait (`ceiling-reached`, `queue-paused`, `no-workers`), as do delayed, backing-off
 * and parked runs. Runs that a `replace` fire cancels are dropped. Never starts more than the capacity. Pure.
 */
export function planQueues(state: PlanState, fires: PlannedFire[], now: number): QueuePhase {
  const out: QueuePhase = { starts: [], waiting: [] };
  const routines = new Map(state.routines.map((r) => [r.routine.name, r.routine]));
  const queues = [...state.queues].sort((a, b) => compareStrings(a.queue.name, b.queue.name));
  const ctx = { now, depthWeight: state.depthWeight ?? 1 };
  for (const qs of queues)
    planQueue(
      qs,
      fires.filter((f) => f.queue === qs.queue.name),
      routines,
      ctx,
      out,
    );
  return out;
}
