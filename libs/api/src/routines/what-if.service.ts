import { Injectable } from '@nestjs/common';
import {
  fileRoutineToApply,
  whatIf,
  WHAT_IF_CHANGES,
  type Bundle,
  type QueueState,
  type RoutineState,
  type WhatIfChange,
  type WhatIfResult,
} from '@drover/core';
import { Clock } from '@drover/redis';
import { PlanService, RoutineStore, type ApplyDiff } from '@drover/store';
import { PolicyApply } from './policy-apply.service';

export interface WhatIfLimits {
  /** The instant (epoch ms) the apply and the scheduler's next pass are imagined at. */
  at?: number;
  slots: number;
  next: number;
}

export type WhatIfAnswer = WhatIfResult & { now: number; queues: ApplyDiff; truncated: string[] };

/**
 * POST /plan/what-if: what applying a candidate bundle would make fire, skip and start at an instant,
 * before the apply. Assembles the candidate state — each bundle routine as the apply would store it
 * (a pause or archive someone made survives) with the stored cursor, launcher and open runs when the
 * routine exists, else its cursor at the instant; the API-made routines the apply leaves alone; the
 * bundle's queues with their live counts — and hands it to core's pure `whatIf`. Reads only.
 */
@Injectable()
export class PlanWhatIf {
  constructor(
    private readonly policy: PolicyApply,
    private readonly routines: RoutineStore,
    private readonly plans: PlanService,
    private readonly clock: Clock,
  ) {}

  async whatIf(bundle: Bundle, limits: WhatIfLimits): Promise<WhatIfAnswer> {
    const now = this.clock.now();
    const at = limits.at ?? now;
    const [{ state, truncated }, records, diff, queues] = await Promise.all([
      this.plans.state(),
      this.routines.list(),
      this.routines.applyFileRoutines(bundle.routines, now, { dryRun: true }),
      this.policy.queueDiff(bundle),
    ]);
    const stored = new Map(state.routines.map((rs) => [rs.routine.name, rs]));
    const prevOf = new Map(records.map((r) => [r.def.name, r]));
    const changes = new Map<string, WhatIfChange>();
    for (const k of WHAT_IF_CHANGES) for (const name of diff[k]) changes.set(name, k);

    const wanted = new Set(bundle.routines.map((r) => r.name));
    const candidate: RoutineState[] = bundle.routines.map((fileDef) => {
      const { def } = fileRoutineToApply(prevOf.get(fileDef.name), fileDef);
      const rs = stored.get(fileDef.name);
      return rs ? { ...rs, routine: def } : { routine: def, lastSlot: at };
    });
    const keptAsIs = state.routines.filter(
      (rs) => !wanted.has(rs.routine.name) && prevOf.get(rs.routine.name)?.origin !== 'file',
    );

    const liveQueues = new Map(state.queues.map((q) => [q.queue.name, q]));
    const fileQueues = new Set(queues.removed);
    const bundleQueues: QueueState[] = bundle.queues.map((q) => {
      const live = liveQueues.get(q.name);
      return live ? { ...live, queue: q } : { queue: q, running: 0, waiting: [], workers: 0 };
    });
    const named = new Set(bundle.queues.map((q) => q.name));
    const otherQueues = state.queues.filter((q) => !named.has(q.queue.name) && !fileQueues.has(q.queue.name));

    const res = whatIf(at, {
      state: { queues: [...bundleQueues, ...otherQueues], routines: [...candidate, ...keptAsIs] },
      changes,
      slots: limits.slots,
      next: limits.next,
    });
    return { ...res, now, queues, truncated };
  }
}
