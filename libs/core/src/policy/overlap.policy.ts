import type { ConcurrencyPolicy } from '../model/routine.schema';
import { ACTIVE_RUN_STATUSES } from '../run/run-status';
import type { Run } from '../run/run.schema';

/**
 * A run as overlap sees it. `bufferedBehind`: the run was made by a `buffer-one` fire while another
 * run was active (the id of that run); while its status is `scheduled` it still waits.
 */
export type OverlapRun = Pick<Run, 'id' | 'status'> & { bufferedBehind?: string };

export type OverlapDecision =
  | { action: 'allow' }
  | { action: 'skip'; reason: 'overlap-forbid' | 'overlap-buffer-full'; blockingRunIds: string[] }
  | { action: 'replace'; cancelRunIds: string[] }
  | { action: 'buffer'; behindRunIds: string[] };

/** Whether a run is a buffered one that has not started yet (it waits for the routine's active run to end). */
export function isBufferedWaiting(run: OverlapRun): boolean {
  return run.bufferedBehind !== undefined && run.status === 'scheduled';
}

/**
 * Decide whether a new fire of a routine may start given its other runs (any statuses; only
 * scheduled/queued/running ones count) and its `concurrencyPolicy`:
 * `allow` → allow; `forbid` → skip while any is active; `replace` → cancel every active one, then start;
 * `buffer-one` → while a run is active, the fire's run waits for it (`buffer`), unless one already
 * waits: then skip (`overlap-buffer-full`). A buffered run that waits counts as active for the
 * other policies (the routine's policy changed since it was made).
 * With no active run every policy allows. Run ids are returned sorted, so the result is deterministic.
 */
export function decideOverlap(policy: ConcurrencyPolicy, runs: readonly OverlapRun[]): OverlapDecision {
  const open = runs.filter((r) => ACTIVE_RUN_STATUSES.includes(r.status));
  const active = open.map((r) => r.id).sort();
  if (policy === 'allow' || active.length === 0) return { action: 'allow' };
  if (policy === 'forbid') return { action: 'skip', reason: 'overlap-forbid', blockingRunIds: active };
  if (policy === 'replace') return { action: 'replace', cancelRunIds: active };
  const waiting = open.filter(isBufferedWaiting).map((r) => r.id);
  if (waiting.length > 0) return { action: 'skip', reason: 'overlap-buffer-full', blockingRunIds: waiting.sort() };
  return { action: 'buffer', behindRunIds: active };
}

/**
 * The buffered run to start now: the oldest waiting one (by id, which orders a routine's slots), once
 * no other run of the routine is active. Undefined while one is, or when none waits. Starting it
 * twice is harmless (the store's promote moves only a run that still waits), so anyone who sees a
 * run end may ask. Pure.
 */
export function bufferedToStart<R extends OverlapRun>(runs: readonly R[]): R | undefined {
  const open = runs.filter((r) => ACTIVE_RUN_STATUSES.includes(r.status));
  const waiting = open.filter(isBufferedWaiting);
  if (waiting.length === 0 || waiting.length < open.length) return undefined;
  return [...waiting].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))[0];
}
