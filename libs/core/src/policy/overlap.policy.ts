import type { ConcurrencyPolicy } from '../model/routine.schema';
import { ACTIVE_RUN_STATUSES } from '../run/run-status';
import type { Run } from '../run/run.schema';

export type OverlapDecision =
  | { action: 'allow' }
  | { action: 'skip'; reason: 'overlap-forbid'; blockingRunIds: string[] }
  | { action: 'replace'; cancelRunIds: string[] };

/**
 * Decide whether a new fire of a routine may start given its other runs (any statuses; only
 * scheduled/queued/running ones count) and its `concurrencyPolicy`:
 * `allow` → allow; `forbid` → skip while any is active; `replace` → cancel every active one, then start.
 * With no active run every policy allows. Run ids are returned sorted, so the result is deterministic.
 */
export function decideOverlap(policy: ConcurrencyPolicy, runs: readonly Pick<Run, 'id' | 'status'>[]): OverlapDecision {
  const active = runs
    .filter((r) => ACTIVE_RUN_STATUSES.includes(r.status))
    .map((r) => r.id)
    .sort();
  if (policy === 'allow' || active.length === 0) return { action: 'allow' };
  if (policy === 'forbid') return { action: 'skip', reason: 'overlap-forbid', blockingRunIds: active };
  return { action: 'replace', cancelRunIds: active };
}
