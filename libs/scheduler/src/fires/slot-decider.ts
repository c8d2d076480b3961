import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import {
  decideOverlap,
  launchBlocker,
  recordLaunchOutcome,
  runIdForSlot,
  type LauncherState,
  type Routine,
} from '@drover/core';
import { LOGGER } from '@drover/logger';
import type { SlotDecision } from '@drover/store';
import { ConditionRegistry } from '../conditions/condition-registry.service';
import { RUN_SINK, type RunSink } from './run-sink';

/** A decision with the launcher bookkeeping it leads to. */
export interface Decided {
  decision: SlotDecision;
  launcher: LauncherState;
}

/**
 * The condition verdict of one dispatch: a check answers about "now", so the slots one dispatch
 * handles share a single evaluation (a catch-up of 100 slots costs one check, not 100).
 */
export type ConditionVerdict = { ok: boolean } | { error: string };

/**
 * Decides one slot: status, launcher backoff, condition, overlap — in that order. Pure but for
 * the condition check (bounded by the routine's `conditionTimeoutMs`) and the open-run lookup
 * that `forbid`/`replace` need; overlap itself is core's `decideOverlap`.
 */
@Injectable()
export class SlotDecider {
  constructor(
    private readonly conditions: ConditionRegistry,
    @Inject(RUN_SINK) private readonly runs: RunSink,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async decide(
    def: Routine,
    slot: number,
    source: 'schedule' | 'catch-up',
    launcher: LauncherState,
    now: number,
    verdicts: Map<string, Promise<ConditionVerdict>>,
  ): Promise<Decided> {
    const skip = (reason: string, next = launcher, failed = false): Decided => ({
      decision: { kind: 'skip', source, reason, ...(failed && { failed }), at: now },
      launcher: next,
    });
    if (def.status === 'paused') return skip('paused');
    const blocked = launchBlocker(launcher, now);
    if (blocked) return skip(blocked.reason);
    if (def.condition) {
      let pending = verdicts.get(def.condition);
      if (!pending) {
        pending = this.check(def, slot);
        verdicts.set(def.condition, pending);
      }
      const verdict = await pending;
      if ('error' in verdict) {
        const next = recordLaunchOutcome(launcher, { kind: 'failed', error: verdict.error }, now, def);
        this.log.warn(
          { routine: def.name, slot, err: verdict.error, failures: next.consecutiveFailures },
          'condition check failed',
        );
        return skip(`condition-failed: ${verdict.error}`, next, true);
      }
      if (!verdict.ok) return skip('condition-false', recordLaunchOutcome(launcher, { kind: 'skipped' }, now, def));
    }
    // The slot's own run (any revision) is never "another" run of the routine.
    const own = runIdForSlot(def.name, slot);
    const open =
      def.concurrencyPolicy === 'allow'
        ? []
        : (await this.runs.openRunsOfRoutine(def.name)).filter((r) => r.id !== own && !r.id.startsWith(`${own}.`));
    const overlap = decideOverlap(def.concurrencyPolicy, open);
    if (overlap.action === 'skip') {
      return skip(overlap.reason, recordLaunchOutcome(launcher, { kind: 'skipped' }, now, def));
    }
    return {
      decision: { kind: 'fire', source, cancel: overlap.action === 'replace' ? overlap.cancelRunIds : [], at: now },
      launcher: recordLaunchOutcome(launcher, { kind: 'enqueued' }, now, def),
    };
  }

  private async check(def: Routine, slot: number): Promise<ConditionVerdict> {
    try {
      const ok = await this.conditions.evaluate(
        def.condition!,
        { routine: def.name, slot, payload: def.payload },
        def.conditionTimeoutMs,
      );
      return { ok };
    } catch (err) {
      return { error: String((err as Error)?.message ?? err).slice(0, 400) };
    }
  }
}
