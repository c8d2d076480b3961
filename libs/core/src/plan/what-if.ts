import { describeCondition } from '../model/condition.schema';
import type { Routine } from '../model/routine.schema';
import type { SkipReason } from '../policy/skip-reason';
import type { RunSource } from '../run/run-status';
import { previewFires, withPlannedStarts, type PreviewFire } from '../schedule/fire-preview';
import { compareStrings } from './compare-strings';
import { plan } from './plan';
import type { PlanState, WaitReason } from './plan.types';

/** How an apply of the candidate bundle would change a routine (the same four words `apply` answers). */
export const WHAT_IF_CHANGES = ['created', 'updated', 'removed', 'unchanged'] as const;
export type WhatIfChange = (typeof WHAT_IF_CHANGES)[number];

/** At most this many routines in one what-if: the answer stays bounded whatever the bundle holds. */
export const WHAT_IF_MAX_ROUTINES = 500;
/** Due fires and skipped slots listed per routine: default and ceiling (the rest are counted in `more`). */
export const WHAT_IF_SLOTS = { default: 20, max: 100 } as const;
/** Next fires after the instant listed per routine: default and ceiling. */
export const WHAT_IF_NEXT = { default: 5, max: 50 } as const;

export interface WhatIfInput {
  /**
   * The state the plan runs on: the candidate's routines (each with the stored cursor, launcher and
   * pause when it exists, else its cursor at the instant: a new routine has missed nothing), the
   * stored routines the apply leaves alone, and the candidate's queues.
   */
  state: PlanState;
  /** The change of each routine of the bundle, and of each stored file routine it would remove. */
  changes: ReadonlyMap<string, WhatIfChange>;
  /** Due fires and skipped slots listed per routine. Default {@link WHAT_IF_SLOTS}.default. */
  slots?: number;
  /** Next fires listed per routine. Default {@link WHAT_IF_NEXT}.default. */
  next?: number;
}

export interface WhatIfFire {
  slot: number;
  source: RunSource;
  runId: string;
  /** Runs the fire cancels first (concurrencyPolicy `replace`). */
  cancel: string[];
  /** concurrencyPolicy `buffer-one`: the active runs the fire's run would wait for (`waits` says `overlap`). */
  behind?: string[];
  /** When its run is planned to start, if later than the slot (the routine's `jitterMs`). */
  start?: number;
  /** True when the run would be leased at once; otherwise `waits` says why not. */
  starts: boolean;
  waits?: { reason: WaitReason; until?: number; detail?: string };
}

export interface WhatIfRoutine {
  routine: string;
  change: WhatIfChange;
  /** The status the apply would leave (a pause or an archive someone made survives the file). */
  status?: Routine['status'];
  queue?: string;
  /**
   * The routine's condition in one line (`describeCondition`): its fires run only if it holds when
   * they fire. A what-if evaluates no condition — it calls no URL and reads no queue — so the fires
   * it lists are those the schedule, catch-up, overlap and launcher allow, each subject to it.
   */
  condition?: string;
  /** Slots between the cursor and the instant that would fire, oldest first (at most `slots`). */
  fires: WhatIfFire[];
  /** Slots that would be recorded as skipped, with the reason, oldest first (at most `slots`). */
  skips: { slot: number; reason: SkipReason }[];
  /** Why the routine would not fire at all now (paused, archived, disabled, backing off, unknown queue…). */
  waiting: { reason: WaitReason; until?: number; detail?: string }[];
  /** Its next fires strictly after the instant, while it is active (at most `next`). */
  next: PreviewFire[];
  /** How many due fires and skips were not listed. */
  more: { fires: number; skips: number };
}

export interface WhatIfResult {
  at: number;
  /** The bundle's routines and the removed ones, by name. */
  routines: WhatIfRoutine[];
}

/**
 * What an apply of a candidate bundle would make happen at `at` (epoch ms), routine by routine: core's
 * `plan` of the candidate state — catch-up and deadline of the slots between each cursor and `at`,
 * launcher backoff, overlap, pause and archive, queue ceilings — grouped per routine with its change and
 * its next fires. Routines the apply leaves alone are planned (they share the queues) but not reported.
 * Bounded by `slots` and `next` per routine; pure and deterministic.
 */
export function whatIf(at: number, input: WhatIfInput): WhatIfResult {
  const slots = Math.max(0, input.slots ?? WHAT_IF_SLOTS.default);
  const nextN = Math.max(0, input.next ?? WHAT_IF_NEXT.default);
  const p = plan(at, input.state);
  const starts = new Set(p.starts.filter((s) => s.fromFire).map((s) => s.runId));
  const runWaits = new Map<string, WhatIfFire['waits']>();
  const routineWaits = new Map<string, WhatIfRoutine['waiting']>();
  for (const { subject, ...w } of p.waiting) {
    if (subject.kind === 'run') runWaits.set(subject.id, w);
    else routineWaits.set(subject.name, [...(routineWaits.get(subject.name) ?? []), w]);
  }
  const defs = new Map(input.state.routines.map((rs) => [rs.routine.name, rs.routine]));
  const routines: WhatIfRoutine[] = [];
  for (const [name, change] of [...input.changes].sort((a, b) => compareStrings(a[0], b[0]))) {
    const def = change === 'removed' ? undefined : defs.get(name);
    if (!def) {
      routines.push({
        routine: name,
        change,
        fires: [],
        skips: [],
        waiting: [],
        next: [],
        more: { fires: 0, skips: 0 },
      });
      continue;
    }
    const fires = p.fires
      .filter((f) => f.routine === name)
      .map(({ slot, source, runId, cancel, start, behind }): WhatIfFire => {
        const waits = starts.has(runId) ? undefined : runWaits.get(runId);
        const begins = start !== undefined && { start };
        return {
          slot,
          source,
          runId,
          cancel,
          ...begins,
          ...(behind && { behind }),
          starts: starts.has(runId),
          ...(waits && { waits }),
        };
      });
    const skips = p.skips.filter((s) => s.routine === name).map(({ slot, reason }) => ({ slot, reason }));
    const waiting = routineWaits.get(name) ?? [];
    const firing = def.status === 'active' && !waiting.some((w) => w.reason === 'disabled');
    routines.push({
      routine: name,
      change,
      status: def.status,
      queue: def.queue,
      ...(def.condition !== undefined && { condition: describeCondition(def.condition) }),
      fires: fires.slice(0, slots),
      skips: skips.slice(0, slots),
      waiting,
      next: firing ? withPlannedStarts(previewFires(def, at, nextN, def), def) : [],
      more: { fires: Math.max(0, fires.length - slots), skips: Math.max(0, skips.length - slots) },
    });
  }
  return { at, routines };
}
