import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import {
  bufferedToStart,
  conditionKey,
  decideOverlap,
  launchBlocker,
  preemptedSkip,
  recordLaunchOutcome,
  runIdForSlot,
  type IdleState,
  type LauncherState,
  type OperatorSkip,
  type Routine,
} from '@drover/core';
import { LOGGER } from '@drover/logger';
import { tracksOpenRuns, type SlotDecision } from '@drover/store';
import { ConditionKindRegistry } from '../conditions/condition-kind-registry.service';
import { ConditionRegistry } from '../conditions/condition-registry.service';
import { RUN_SINK, type RunSink } from './run-sink';
import { SlotSelector, type SelectionCache } from './slot-selector';

/**
 * What the slots of one dispatch share: the launcher and idle bookkeeping as decisions move them on,
 * and the answers of checks that speak about "now" — one condition verdict and one candidate list per
 * dispatch, however many slots it handles (a catch-up of 100 slots costs one check, not 100).
 */
export interface DecisionContext extends SelectionCache {
  launcher: LauncherState;
  idle: IdleState;
  /** By `conditionKey`: a name, or a built-in kind's canonical JSON. */
  verdicts: Map<string, Promise<ConditionVerdict>>;
  /** The routine's pending operator skips, by slot (read once per dispatch). */
  skips: ReadonlyMap<number, OperatorSkip>;
}

export type ConditionVerdict = { ok: boolean } | { error: string };

/** A decision with the bookkeeping it leads to (applied to the context only if the slot is claimed). */
export interface Decided {
  decision: SlotDecision;
  launcher: LauncherState;
  idle: IdleState;
}

/**
 * Decides one slot: exclusion calendars and operator skips (core's `preemptedSkip`), status,
 * launcher backoff, condition, overlap, and for a selector routine which candidates — in that
 * order. An excluded or operator-skipped slot is no launch at all: it runs no condition check and
 * leaves the launcher's bookkeeping alone, and it is recorded so even while the routine is paused. Pure but for the condition check and the candidate provider (each
 * bounded by the routine's `conditionTimeoutMs`) and the run lookups `forbid`/`replace` and
 * selection need; overlap itself is core's `decideOverlap`, ranking core's `selectCandidates`.
 */
@Injectable()
export class SlotDecider {
  constructor(
    private readonly conditions: ConditionRegistry,
    private readonly kinds: ConditionKindRegistry,
    private readonly selector: SlotSelector,
    @Inject(RUN_SINK) private readonly runs: RunSink,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async decide(
    def: Routine,
    slot: number,
    source: 'schedule' | 'catch-up',
    ctx: DecisionContext,
    now: number,
  ): Promise<Decided> {
    const { launcher, idle } = ctx;
    const skip = (reason: string, next = launcher, failed = false, nextIdle = idle): Decided => ({
      decision: { kind: 'skip', source, reason, ...(failed && { failed }), at: now },
      launcher: next,
      idle: nextIdle,
    });
    const launchFailed = (error: string, what: string): Decided => {
      const next = recordLaunchOutcome(launcher, { kind: 'failed', error }, now, def);
      this.log.warn({ routine: def.name, slot, err: error, failures: next.consecutiveFailures }, `${what} failed`);
      return skip(`${what === 'condition check' ? 'condition' : 'candidates'}-failed: ${error}`, next, true);
    };
    const preempted = preemptedSkip(def, slot, ctx.skips);
    if (preempted) return skip(preempted);
    if (def.status === 'paused') return skip('paused');
    const blocked = launchBlocker(launcher, now);
    if (blocked) return skip(blocked.reason);
    if (def.condition) {
      const key = conditionKey(def.condition);
      let pending = ctx.verdicts.get(key);
      if (!pending) {
        pending = this.check(def, slot);
        ctx.verdicts.set(key, pending);
      }
      const verdict = await pending;
      if ('error' in verdict) return launchFailed(verdict.error, 'condition check');
      if (!verdict.ok) return skip('condition-false', recordLaunchOutcome(launcher, { kind: 'skipped' }, now, def));
    }
    // The slot's own run (any revision) is never "another" run of the routine.
    const own = runIdForSlot(def.name, slot);
    // Open runs are tracked under the same rule they are read by (the run maker's).
    const readOpen = async () =>
      !tracksOpenRuns(def)
        ? []
        : (await this.runs.openRunsOfRoutine(def.name)).filter((r) => r.id !== own && !r.id.startsWith(`${own}.`));
    let open = await readOpen();
    if (def.concurrencyPolicy === 'buffer-one' && bufferedToStart(open)) {
      // A buffered run whose active run ended unseen (its settler died before asking): start it
      // now, then this slot is decided against it.
      if (await this.runs.startBuffered(def.name)) open = await readOpen();
    }
    const overlap = decideOverlap(def.concurrencyPolicy, open);
    if (overlap.action === 'skip') {
      return skip(overlap.reason, recordLaunchOutcome(launcher, { kind: 'skipped' }, now, def));
    }
    const cancel = overlap.action === 'replace' ? overlap.cancelRunIds : [];
    const enqueued = recordLaunchOutcome(launcher, { kind: 'enqueued' }, now, def);
    if (overlap.action === 'buffer') {
      const decision: SlotDecision = { kind: 'fire', source, cancel, at: now, behind: overlap.behindRunIds };
      return { decision, launcher: enqueued, idle };
    }
    if (!def.selector) return { decision: { kind: 'fire', source, cancel, at: now }, launcher: enqueued, idle };

    const chosen = await this.selector.choose(def, slot, { ...ctx, open }, now);
    if (chosen.kind === 'failed') return launchFailed(chosen.error, 'candidate provider');
    const healthy = recordLaunchOutcome(launcher, { kind: 'skipped' }, now, def);
    if (chosen.kind === 'idle') return skip(chosen.reason, healthy, false, chosen.idle);
    return {
      decision: { kind: 'fire', source, cancel, at: now, keys: chosen.keys },
      launcher: enqueued,
      idle: chosen.idle,
    };
  }

  private async check(def: Routine, slot: number): Promise<ConditionVerdict> {
    const condition = def.condition!;
    const fire = { routine: def.name, slot, payload: def.payload };
    try {
      const ok =
        typeof condition === 'string'
          ? await this.conditions.evaluate(condition, fire, def.conditionTimeoutMs)
          : await this.kinds.evaluate({ ...fire, condition }, def.conditionTimeoutMs);
      return { ok };
    } catch (err) {
      return { error: String((err as Error)?.message ?? err).slice(0, 400) };
    }
  }
}
