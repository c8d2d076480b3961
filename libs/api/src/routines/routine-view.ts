import type { z } from 'zod';
import { launcherHealth, nextRunningSlot, type RoutineRecord } from '@drover/core';
import type { RoutineState, RunView } from '@drover/store';
import { isoOf as iso } from '../http/api-time';
import type { LastRunSchema, RoutineSchema } from './routine-schemas';

export type RoutineAnswer = z.output<typeof RoutineSchema>;
export type LastRunAnswer = z.output<typeof LastRunSchema>;

export function lastRunOf(run: RunView | undefined): LastRunAnswer | null {
  if (!run) return null;
  return {
    id: run.id,
    status: run.status,
    at: iso(run.finishedAt ?? run.startedAt ?? run.createdAt),
    scheduledFor: run.scheduledFor === null ? null : iso(run.scheduledFor),
  };
}

/**
 * When the routine runs next at `now` (epoch ms) on its schedule — within startAt/endAt, past the
 * slots its exclusion calendars hold — or undefined when nothing will fire it.
 */
export function nextFireOf(rec: RoutineRecord, state: RoutineState, now: number): number | undefined {
  if (rec.def.status !== 'active' || state.disabledReason) return undefined;
  return nextRunningSlot(rec.def, now);
}

/** A routine as the API answers it (origin, drift, next fire, last run). Pure. */
export function routineView(
  rec: RoutineRecord,
  state: RoutineState,
  lastRun: RunView | undefined,
  now: number,
): RoutineAnswer {
  const next = nextFireOf(rec, state, now);
  const health = launcherHealth(state, now);
  const p = rec.pause;
  return {
    name: rec.def.name,
    definition: rec.def,
    origin: rec.origin,
    drifted: !!rec.drift,
    drift: rec.drift ? { ...(rec.drift.by && { by: rec.drift.by }), at: iso(rec.drift.at) } : null,
    version: rec.version,
    status: rec.def.status,
    disabledReason: state.disabledReason ?? null,
    launcher: {
      consecutiveFailures: health.consecutiveFailures,
      backoffUntil: health.backoffUntil === undefined ? null : iso(health.backoffUntil),
      lastError: health.lastLaunchError ?? null,
      disabledAt: health.disabledAt === undefined ? null : iso(health.disabledAt),
    },
    pause:
      p && rec.def.status === 'paused'
        ? {
            at: iso(p.at),
            ...(p.by && { by: p.by }),
            ...(p.note && { note: p.note }),
            ...(p.until !== undefined && { until: iso(p.until) }),
          }
        : null,
    archive:
      rec.def.status === 'archived'
        ? { at: iso(rec.archive?.at ?? rec.updatedAt), ...(rec.archive?.by && { by: rec.archive.by }) }
        : null,
    nextFireAt: next === undefined ? null : iso(next),
    lastRun: lastRunOf(lastRun),
    createdAt: iso(rec.createdAt),
    updatedAt: iso(rec.updatedAt),
    ...(rec.createdBy !== undefined && { createdBy: rec.createdBy }),
    ...(rec.updatedBy !== undefined && { updatedBy: rec.updatedBy }),
  };
}
