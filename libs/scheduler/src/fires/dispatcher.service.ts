import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import {
  catchUp,
  catchUpOne,
  initialIdle,
  nextFire,
  plannedStart,
  preemptedSkip,
  type IdleState,
  type Routine,
  type RoutineRecord,
} from '@drover/core';
import { LOGGER } from '@drover/logger';
import { DroverMetrics, FIRE_OUTCOMES } from '@drover/metrics';
import { Clock, StaleLeaderError } from '@drover/redis';
import {
  RoutineChanges,
  RoutineStore,
  SlotClaims,
  SlotSkips,
  withinPendingWindow,
  type CursorNext,
  type FireRequest,
  type RoutineState,
  type SlotClaim,
  type SlotDecision,
} from '@drover/store';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';
import { armableSlots } from './arming';
import { Disarmer } from './disarmer';
import { emptyResult, SlotApplier, type DispatchResult } from './slot-applier';
import { SlotDecider, type DecisionContext } from './slot-decider';

export type { DispatchResult } from './slot-applier';

/**
 * A claim younger than this whose outcome is not written yet may belong to a dispatcher still at
 * work; a retried fire (its maker died) or an armed claim does not wait.
 */
const CLAIM_SETTLE_MS = 10_000;

/** One dispatch in progress: what every slot of it shares. */
interface Dispatch {
  record: RoutineRecord;
  def: Routine;
  now: number;
  retry: boolean;
  ctx: DecisionContext;
  result: DispatchResult;
  gone: boolean;
}

/** Where the watchdog's index goes if `slot` becomes the cursor: the routine's next slot after it. */
const nextAfter = (d: Dispatch, slot: number): CursorNext => ({
  version: d.record.version,
  slot: nextFire(d.def, slot),
});

const idleOf = (s: RoutineState): IdleState =>
  s.idleMultiplier === undefined
    ? initialIdle()
    : { multiplier: s.idleMultiplier, tick: s.idleTick ?? 0, ...(s.idleSince !== undefined && { since: s.idleSince }) };

/**
 * Turns a fire into runs. Every scheduler replica runs this for the fires BullMQ hands it. Per
 * slot: decide (SlotDecider) → claim the slot with that decision (at most one claim wins, and the
 * claim moves the routine's cursor) → write the outcome (SlotApplier) → mark the claim done.
 * A done claim is final; a pending one whose maker died is completed by whoever meets it, and the
 * run's deduplication marker makes that safe even if retention already removed the run. Then the
 * next slots are armed ahead when nothing decided at fire time could change them.
 */
@Injectable()
export class Dispatcher {
  constructor(
    private readonly routines: RoutineStore,
    private readonly claims: SlotClaims,
    private readonly skips: SlotSkips,
    private readonly decider: SlotDecider,
    private readonly applier: SlotApplier,
    private readonly disarmer: Disarmer,
    private readonly changes: RoutineChanges,
    private readonly clock: Clock,
    private readonly metrics: DroverMetrics,
    @Inject(SCHEDULER_OPTIONS) private readonly opts: SchedulerOptions,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    // Every outcome exported at 0 from the start: rate()/increase() then see the first fire of each.
    for (const outcome of FIRE_OUTCOMES) metrics.scheduleFires.inc({ outcome }, 0);
  }

  /**
   * Handles a fire: every slot of `routine` due by now (at least up to `request.slot`, which may be
   * a hair ahead on a skewed clock — its run then waits for the slot), or for a refire the one
   * revoked slot. `retry` is set when BullMQ hands the fire again (its first attempt may have died).
   */
  async dispatch(
    routine: string,
    request: FireRequest,
    opts: { retry?: boolean } = {},
  ): Promise<DispatchResult | undefined> {
    // The fire's own slot claim and the operators' skips come with the routine (sent together).
    const [{ record, state }, own, skips] = await Promise.all([
      this.routines.getWithState(routine),
      this.claims.get(routine, request.slot),
      this.skips.pending(routine),
    ]);
    if (!record || record.def.status === 'archived' || record.def.trigger?.kind === 'manual') return undefined;
    const now = this.clock.now();
    const d: Dispatch = {
      record,
      def: record.def,
      now,
      retry: !!opts.retry,
      ctx: { launcher: { ...state }, idle: idleOf(state), verdicts: new Map(), picked: new Set(), skips },
      result: emptyResult(),
      gone: false,
    };
    const cursor = state.lastSlot ?? state.since ?? record.createdAt;
    let newest = cursor;
    const policy = {
      policy: d.def.catchUpPolicy,
      misfireGraceMs: d.def.misfireGraceMs,
      ...(d.def.startingDeadlineMs !== undefined && { startingDeadlineMs: d.def.startingDeadlineMs }),
      // Lateness counts from each slot's planned start: a jittered run is not late for its jitter.
      startOf: (slot: number) => plannedStart(d.def, slot),
    };
    if (request.refireOf !== undefined) {
      const one = catchUpOne(request.slot, { ...policy, now: Math.max(now, request.slot) });
      const slot = 'fire' in one ? one.fire : { ...one.skip, source: 'catch-up' as const, skip: one.skip.reason };
      await this.handle(d, slot, true);
    } else {
      // The newest claimed slot (the cursor's) may be left pending by a maker that is gone: a
      // retried fire's first attempt died on it, or, when the watchdog asks for a repair because
      // the routine made no progress for its tolerance, its fire job was lost while completing it
      // (a second loss of Redis writes). Nothing else would ever finish that claim, and it is
      // older than the slots caught up below: finish it first.
      if ((d.retry || request.repair) && state.lastSlot !== undefined && state.lastSlot !== request.slot) {
        await this.complete(d, state.lastSlot, await this.claims.get(routine, state.lastSlot), true);
      }
      // Slots up to this fire's own, even if it arrived a hair early: its run waits for the slot.
      const plan = catchUp({
        ...policy,
        trigger: d.def,
        lastSlot: cursor,
        now: Math.max(now, request.slot),
        maxCatchUp: d.def.maxCatchUp,
      });
      if (plan.unlisted) this.metrics.scheduleFires.inc({ outcome: 'skipped' }, plan.unlisted.count);
      const slots = [
        ...plan.skip.map((s) => ({ slot: s.slot, skip: s.reason, source: 'catch-up' as const })),
        ...plan.fire.map((f) => ({ slot: f.slot, source: f.source })),
      ].sort((a, b) => a.slot - b.slot);
      for (const s of slots) if (!d.gone) await this.handle(d, s, false);
      // The fire's own slot was claimed before (armed ahead, or by this fire's first attempt): if
      // that claimer died before writing the outcome, finish it now.
      if (request.slot <= cursor && !d.gone) await this.complete(d, request.slot, own);
      newest = plan.cursor;
    }
    // The next slots after this fire's (the cursor may already be past them: armed earlier).
    if (!d.gone) await this.armNext(d, state, Math.max(now, request.slot));
    if (!d.gone) await this.saveState(d, newest > cursor ? newest : undefined, state);
    return d.result;
  }

  /** Decides, claims and applies one slot. */
  private async handle(
    d: Dispatch,
    s: { slot: number; source: 'schedule' | 'catch-up'; skip?: string },
    takeoverOnly: boolean,
  ): Promise<void> {
    // An exclusion or an operator's skip is recorded as such whatever catch-up made of the slot.
    const decided =
      s.skip && !preemptedSkip(d.def, s.slot, d.ctx.skips)
        ? {
            decision: { kind: 'skip', source: s.source, reason: s.skip, at: d.now } as SlotDecision,
            launcher: d.ctx.launcher,
            idle: d.ctx.idle,
          }
        : await this.decider.decide(d.def, s.slot, s.source, d.ctx, d.now);
    const outcome = await this.claims.claim({
      routine: d.def.name,
      slot: s.slot,
      decision: decided.decision,
      now: d.now,
      takeoverOnly,
      next: nextAfter(d, s.slot),
    });
    switch (outcome.kind) {
      case 'claimed':
        // A skip is forgotten once its slot is decided (recorded skipped, or decided otherwise).
        if (d.ctx.skips.has(s.slot)) await this.skips.forget(d.def.name, s.slot);
        d.ctx.launcher = decided.launcher;
        d.ctx.idle = decided.idle;
        await this.applier.apply(
          d.def,
          { slot: s.slot, rev: outcome.rev, now: d.now, start: plannedStart(d.def, s.slot) },
          decided.decision,
          d.result,
        );
        await this.claims.finish(d.def.name, s.slot, outcome.value, d.now);
        return;
      case 'taken':
        d.result.duplicates++;
        return this.complete(d, s.slot, outcome.claim);
      case 'stale':
        throw new StaleLeaderError(`slot ${s.slot} of routine "${d.def.name}"`);
      case 'gone':
        d.gone = true;
        return;
      case 'passed':
        d.result.duplicates++;
    }
  }

  /**
   * Finishes a claim whose outcome was never written (its maker died half-way). Re-applying is
   * safe: the run's deduplication marker outlives retention for the pending window; past it the
   * slot is resolved without a run (`claim-abandoned`) rather than risk running it twice.
   */
  private async complete(d: Dispatch, slot: number, claim: SlotClaim | undefined, makerGone = false): Promise<void> {
    if (!claim?.decision || claim.state === 'done' || claim.arm === 'revoked') return;
    const armed = claim.arm !== 'none';
    const made = claim.decision;
    // Its maker may still be at work: leave it, unless this is its own fire retried or a repair
    // (the maker died, or its fire is lost) or the slot of an armed run has come (the arm was made
    // long before). Should the maker still finish it, both write the same outcome once: the run's
    // id and deduplication marker, and the claim's compare-and-set, let only one through.
    if (!d.retry && !makerGone && d.now - made.at < CLAIM_SETTLE_MS && !(armed && slot <= d.now)) return;
    const armedFor = made.kind === 'fire' ? made.v : undefined;
    if (armed && armedFor !== d.record.version) {
      // Armed for a definition that changed since: withdraw it and decide the slot again.
      await this.disarmer.disarm(d.def.name, [{ slot, version: armedFor ?? 0, queue: d.def.queue }], {
        refire: true,
        why: 'an unfinished arm of an older version',
      });
      return;
    }
    const abandoned = made.kind === 'fire' && !withinPendingWindow(slot, made.at, d.now);
    const decision: SlotDecision = abandoned
      ? { kind: 'skip', source: made.source, reason: 'claim-abandoned', at: d.now }
      : made;
    this.log.warn(
      { routine: d.def.name, slot, decision: decision.kind, abandoned },
      'completing a slot whose claimer died half-way',
    );
    // A claim that may have reached no replica must not produce a run (see SlotClaims.confirm).
    if (!abandoned) await this.claims.confirm(d.def.name, slot, claim);
    const target = {
      slot,
      rev: claim.rev,
      now: d.now,
      start: plannedStart(d.def, slot),
      ...(armed && !abandoned && { armedVersion: armedFor, leadMs: this.opts.armLeadMs }),
    };
    await this.applier.apply(d.def, target, decision, d.result);
    await this.claims.finish(d.def.name, slot, claim.raw, d.now, target.start);
  }

  /**
   * Creates the upcoming slots' runs now, delayed until their slots, when nothing decided at fire
   * time could change them (see `armableSlots`). Each slot is claimed like any other, tagged with
   * the routine version; a worker refuses to start a run armed for an older version. If the
   * routine changed while arming, what was armed is withdrawn at once.
   */
  private async armNext(d: Dispatch, state: RoutineState, after: number): Promise<void> {
    const { def, record, now } = d;
    const held = new Set(
      state.armed
        .filter((e) => e.slot > now && e.queue === def.queue && e.version === record.version)
        .map((e) => e.slot),
    );
    const skipped = (slot: number) => preemptedSkip(def, slot, d.ctx.skips) !== undefined;
    const fresh = armableSlots(def, d.ctx.launcher, after, now, skipped).filter((s) => !held.has(s));
    const armed = [];
    for (const slot of fresh) {
      const decision: SlotDecision = { kind: 'fire', source: 'schedule', cancel: [], at: now, v: record.version };
      const entry = { slot, version: record.version, queue: def.queue };
      const outcome = await this.claims.claim({
        routine: def.name,
        slot,
        decision,
        now,
        armed: entry,
        next: nextAfter(d, slot),
      });
      if (outcome.kind === 'gone') return;
      if (outcome.kind === 'taken') await this.complete(d, slot, outcome.claim);
      if (outcome.kind !== 'claimed') continue;
      const start = plannedStart(def, slot);
      const target = { slot, rev: outcome.rev, now, start, armedVersion: record.version, leadMs: this.opts.armLeadMs };
      await this.applier.apply(def, target, decision, d.result);
      await this.claims.finish(def.name, slot, outcome.value, now, start);
      armed.push(entry);
    }
    if (armed.length === 0) return;
    const current = await this.routines.get(def.name);
    if (current?.version !== record.version) {
      await this.disarmer.disarm(def.name, armed, { refire: !!current, why: 'the routine changed while arming' });
    }
  }

  /** Cursor (for slots listed only as a count), launcher and idle bookkeeping and the last run, in one round trip. */
  private async saveState(d: Dispatch, cursor: number | undefined, before: RoutineState): Promise<void> {
    const after = d.ctx.launcher;
    const launcherChanged =
      before.consecutiveFailures !== after.consecutiveFailures ||
      before.nextAttemptAt !== after.nextAttemptAt ||
      before.disabledReason !== after.disabledReason ||
      before.lastLaunchError !== after.lastLaunchError;
    const idle = d.ctx.idle;
    const idleBefore = idleOf(before);
    const idleChanged =
      idle.multiplier !== idleBefore.multiplier || idle.tick !== idleBefore.tick || idle.since !== idleBefore.since;
    const r = d.result;
    const last = r.enqueued.at(-1) ?? r.skipped.at(-1)?.id ?? r.failed.at(-1)?.id;
    if (cursor === undefined && !launcherChanged && !idleChanged && !last) return;
    await this.routines.advanceCursor(
      d.def.name,
      cursor,
      {
        ...(launcherChanged && {
          consecutiveFailures: after.consecutiveFailures,
          nextAttemptAt: after.nextAttemptAt,
          disabledReason: after.disabledReason,
          disabledAt: after.disabledAt,
          lastLaunchError: after.lastLaunchError,
        }),
        ...(idleChanged && { idleMultiplier: idle.multiplier, idleTick: idle.tick, idleSince: idle.since }),
        ...(last && { lastRunId: last, lastFiredAt: d.now }),
      },
      cursor === undefined ? undefined : nextAfter(d, cursor),
    );
    if (after.disabledReason && !before.disabledReason) {
      this.log.error(
        { routine: d.def.name, reason: after.disabledReason },
        'routine disabled after repeated launch failures',
      );
      // The leader's reconciler drops the Job Scheduler of a disabled routine.
      await this.changes.announce(d.def.name);
    }
  }
}
