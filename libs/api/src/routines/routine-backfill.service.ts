import { Injectable } from '@nestjs/common';
import { backfillSlots, runIdForSlot, slotTrigger, type Routine } from '@drover/core';
import { Clock } from '@drover/redis';
import { newRunId, RoutineNotTriggerableError, runOfRoutine, RunStore, slotDedup, type NewRun } from '@drover/store';
import type { Principal } from '../auth/principal';
import type { z } from 'zod';
import type { BackfillSchema } from './routine-schemas';

/** Slots probed at once (each a couple of commands, sent together). */
const PROBE_CHUNK = 50;

/**
 * Runs the slots of `(from, to]` an operator asks for, once each, however often asked:
 * - a slot nobody decided yet gets the scheduler's own run id (`r-<routine>-<slot>`) and its
 *   deduplication marker, so the scheduler deciding it later (or at the same moment) adds nothing;
 * - a slot the scheduler ran (or an earlier backfill did) is left alone (`existing`);
 * - a slot the scheduler skipped (a catch-up policy, a deadline) runs under `b-<routine>-<slot>`,
 *   so the skipped record stays and a second backfill finds the first one's run.
 * Runs are `catch-up` runs of the slot (its `scheduledFor`), created by the caller's token.
 * A dry run answers the same lists, `created` holding the runs it would create, and writes nothing.
 */
@Injectable()
export class RoutineBackfill {
  constructor(
    private readonly runs: RunStore,
    private readonly clock: Clock,
  ) {}

  async backfill(
    def: Routine,
    from: number,
    to: number,
    who: Principal,
    dryRun = false,
  ): Promise<z.output<typeof BackfillSchema>> {
    if (def.status === 'archived') throw new RoutineNotTriggerableError(def.name, 'it is archived');
    if (def.selector) {
      throw new RoutineNotTriggerableError(
        def.name,
        'a selector routine picks its work per tick; trigger it with a key',
      );
    }
    const { slots, capped, exact } = backfillSlots(def, from, to, def.maxCatchUp);
    const runIds: string[] = [];
    const created: string[] = [];
    const existing: string[] = [];
    for (let i = 0; i < slots.length; i += PROBE_CHUNK) {
      const chunk = slots.slice(i, i + PROBE_CHUNK);
      const now = this.clock.now();
      const found = await Promise.all(chunk.map((slot) => this.runs.get(runIdForSlot(def.name, slot), def.queue)));
      const wanted = chunk.map((slot, j): NewRun | string => {
        const own = found[j];
        if (own && own.status !== 'skipped') return own.id;
        const id = newRunId({ kind: own ? 'backfill' : 'slot', routine: def.name, slot });
        return this.runFor(def, id, slot, now, who, !own);
      });
      const fresh = wanted.filter((w): w is NewRun => typeof w !== 'string');
      const results = new Map(
        (dryRun ? await this.wouldCreate(fresh, def.queue) : await this.runs.enqueueMany(fresh)).map((r) => [r.id, r]),
      );
      for (const w of wanted) {
        const id = typeof w === 'string' ? w : w.id;
        runIds.push(id);
        if (typeof w !== 'string' && results.get(id)?.created) created.push(id);
        else existing.push(id);
      }
    }
    return { runIds, created, existing, capped, cappedExact: exact };
  }

  /** What `enqueueMany` would answer, read only: a run exists under the id, or it would be created. */
  private async wouldCreate(fresh: NewRun[], queue: string): Promise<{ id: string; created: boolean }[]> {
    const found = await Promise.all(fresh.map((r) => this.runs.get(r.id, queue)));
    return fresh.map((r, i) => ({ id: r.id, created: !found[i] }));
  }

  private runFor(def: Routine, id: string, slot: number, now: number, who: Principal, schedulersId: boolean): NewRun {
    return runOfRoutine(def, {
      id,
      source: 'catch-up',
      scheduledFor: slot,
      createdBy: who.name,
      ...(def.triggers && { trigger: slotTrigger(def, slot) }),
      // The scheduler's marker on its own id: a slot decided while this runs is never run twice.
      ...(schedulersId && { dedup: slotDedup(id, slot, now) }),
    });
  }
}
