import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import {
  launchBlocker,
  priorityValue,
  recordLaunchOutcome,
  runIdForSlot,
  type LauncherState,
  type Routine,
} from '@drover/core';
import { LOGGER } from '@drover/logger';
import { DroverMetrics, FIRE_OUTCOMES } from '@drover/metrics';
import { Clock } from '@drover/platform';
import { DroverKeys, RedisConnections, ScriptCode, withDroverScripts } from '@drover/redis';
import { BullQueues, RoutineStore, type RoutineRecord, type RoutineState } from '@drover/store';
import { ConditionRegistry } from '../conditions/condition-registry.service';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';
import { planDue } from './plan-due';
import { armableSlots } from './arming';
import { RUN_SINK, type NewRunRequest, type RunSink } from './run-sink';
import { slotClaimTtlMs } from './slot-claim';
import { decodeDecision, encodeDecision, type SlotDecision } from './slot-decision';

export interface DispatchResult {
  enqueued: string[];
  skipped: { id: string; reason: string }[];
  failed: { id: string; error: string }[];
  /** Slots another dispatcher had already claimed. */
  duplicates: number;
}

/**
 * A claimer writes its run within milliseconds of claiming. A claim older than this whose run is
 * missing means the claimer died half-way; whoever finds it then completes the decision.
 */
const CLAIM_SETTLE_MS = 10_000;
/** Claims older than this are history: their slot was long dealt with one way or another. */
const CLAIM_COMPLETION_WINDOW_MS = 30 * 60_000;

/**
 * Turns a due routine into runs: every replica runs this for the fires BullMQ hands it, and the
 * leader for catch-up and watchdog repairs. Per slot it decides (status, launcher backoff,
 * condition, overlap), claims the slot with that decision (SET NX), then applies it. Run ids
 * derive from the slot and every write is idempotent, so a slot yields at most one run whoever
 * calls and however often; a decision whose maker died half-way is completed by the next caller.
 */
@Injectable()
export class Dispatcher {
  private readonly routinesStore: RoutineStore;

  constructor(
    private readonly conns: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly clock: Clock,
    private readonly conditions: ConditionRegistry,
    private readonly metrics: DroverMetrics,
    @Inject(RUN_SINK) private readonly runs: RunSink,
    private readonly bull: BullQueues,
    @Inject(SCHEDULER_OPTIONS) private readonly opts: SchedulerOptions,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.routinesStore = new RoutineStore(conns.command, keys);
    // Every outcome exported at 0 from the start: rate()/increase() then see the first fire of each.
    for (const outcome of FIRE_OUTCOMES) metrics.scheduleFires.inc({ outcome }, 0);
  }

  /**
   * Handles every slot of `routine` due by now (at least up to `dueSlot`, which may be a hair in
   * the future on a skewed clock). `token` fences leader-only callers; fires pass none.
   */
  async dispatchDue(
    routine: string,
    dueSlot: number,
    token = '',
    opts: { retry?: boolean } = {},
  ): Promise<DispatchResult | undefined> {
    const { record, state } = await this.routinesStore.getWithState(routine);
    if (!record || record.def.status === 'archived' || record.def.trigger.kind === 'manual') return undefined;
    const def = record.def;
    const now = Math.max(this.clock.now(), dueSlot);
    const cursor = state.lastSlot ?? state.since ?? record.createdAt;
    const plan = planDue(def, cursor, now, this.opts.missedAfterMs);
    const result: DispatchResult = { enqueued: [], skipped: [], failed: [], duplicates: 0 };
    const ttl = slotClaimTtlMs(def.trigger, now);
    if (plan.unlisted) this.metrics.scheduleFires.inc({ outcome: 'skipped' }, plan.unlisted.count);
    const slots = [
      ...plan.skip.map((s) => ({ slot: s.slot, skip: s.reason, source: 'catch-up' as const })),
      ...plan.fire.map((f) => ({ slot: f.slot, skip: undefined, source: f.source })),
    ].sort((a, b) => a.slot - b.slot);
    let launcher: LauncherState = { ...state };
    for (const s of slots) {
      const id = runIdForSlot(routine, s.slot);
      const decided = s.skip
        ? { decision: { kind: 'skip', source: s.source, reason: s.skip, at: now } as SlotDecision, launcher }
        : await this.decide(def, s.slot, s.source, launcher, now);
      if (await this.claim(routine, s.slot, encodeDecision(decided.decision), ttl, token)) {
        launcher = decided.launcher;
        await this.apply(def, id, s.slot, decided.decision, result);
      } else {
        result.duplicates++;
        await this.completeIfAbandoned(def, s.slot, !!opts.retry, result);
      }
    }
    // A retried fire whose slot the cursor already passed: its first attempt may have died
    // between claiming and writing the run (a crashed replica), so look once more.
    if (opts.retry && dueSlot <= cursor) await this.completeIfAbandoned(def, dueSlot, true, result);
    const armed = await this.armNext(record, state, launcher, Math.max(plan.cursor, dueSlot), ttl, token);
    await this.saveState(routine, plan.cursor > cursor ? plan.cursor : undefined, state, launcher, result, armed);
    return result;
  }

  /**
   * Creates the upcoming slots' runs now, delayed until their slots, when nothing decided at
   * fire time could change them (see `armableSlots`). Each slot is claimed first like any other,
   * so the fire that arrives for it later finds it done. If the routine changed meanwhile
   * (version moved), the armed runs are discarded again and their slots freed.
   */
  private async armNext(
    record: RoutineRecord,
    state: RoutineState,
    launcher: LauncherState,
    after: number,
    ttl: number,
    token: string,
  ): Promise<{ slots: number[]; queue: string } | undefined> {
    const def = record.def;
    const now = this.clock.now();
    const pending = (state.armedSlots ?? []).filter((s) => s > now && state.armedQueue === def.queue);
    const fresh = armableSlots(def, launcher, after, now).filter((s) => !pending.includes(s));
    if (fresh.length === 0) return undefined;
    const armed: number[] = [];
    for (const slot of fresh) {
      const decision: SlotDecision = { kind: 'fire', source: 'schedule', cancel: [], at: now, armed: true };
      if (!(await this.claim(def.name, slot, encodeDecision(decision), slot - now + ttl, token))) continue;
      const id = runIdForSlot(def.name, slot);
      await this.runs.enqueue({ ...this.runFor(def, id, slot, 'schedule'), delayMs: Math.max(0, slot - now) });
      this.metrics.scheduleFires.inc({ outcome: 'enqueued' });
      armed.push(slot);
    }
    const current = await this.routinesStore.get(def.name);
    if (!current || current.version !== record.version) {
      await this.disarm(def.name, { armedSlots: armed, armedQueue: def.queue });
      return undefined;
    }
    return { slots: [...pending, ...armed].sort((a, b) => a - b), queue: def.queue };
  }

  /**
   * Undoes armed runs that have not started (their routine was edited, paused or deleted) and
   * frees their slots, so each slot's fire is dispatched afresh with the routine as it is now.
   * Returns how many runs were removed.
   */
  async disarm(routine: string, armed?: { armedSlots?: number[]; armedQueue?: string }): Promise<number> {
    const { armedSlots, armedQueue } = armed ?? (await this.routinesStore.getState(routine));
    if (!armedSlots?.length || !armedQueue) return 0;
    let removed = 0;
    for (const slot of armedSlots) {
      const id = runIdForSlot(routine, slot);
      const job = await this.bull.get(armedQueue).getJob(id);
      if (!job || !(await job.isDelayed()) || (await this.bull.get(armedQueue).remove(id)) !== 1) continue;
      removed++;
      const slotKey = this.keys.core('slot', routine, slot);
      const claim = decodeDecision(await this.conns.command.get(slotKey));
      if (claim?.kind === 'fire' && claim.armed) await this.conns.command.del(slotKey);
    }
    await this.routinesStore.advanceCursor(routine, undefined, { armedSlots: undefined, armedQueue: undefined });
    if (removed) this.log.info({ routine, removed }, 'disarmed upcoming runs: the routine changed before their slots');
    return removed;
  }

  /** Status, launcher backoff, condition and overlap, in that order; pure but for the condition and the run lookup. */
  private async decide(
    def: Routine,
    slot: number,
    source: 'schedule' | 'catch-up',
    launcher: LauncherState,
    now: number,
  ): Promise<{ decision: SlotDecision; launcher: LauncherState }> {
    const skip = (reason: string, next = launcher, failed = false) => ({
      decision: { kind: 'skip', source, reason, failed, at: now } as SlotDecision,
      launcher: next,
    });
    if (def.status === 'paused') return skip('paused');
    const blocked = launchBlocker(launcher, now);
    if (blocked) return skip(blocked.reason);
    if (def.condition) {
      try {
        const ok = await this.conditions.evaluate(def.condition, {
          routine: def.name,
          slot,
          payload: def.payload,
          signal: new AbortController().signal,
        });
        if (!ok) return skip('condition-false', recordLaunchOutcome(launcher, { kind: 'skipped' }, now, def));
      } catch (err) {
        const message = String((err as Error)?.message ?? err).slice(0, 400);
        const next = recordLaunchOutcome(launcher, { kind: 'failed', error: message }, now, def);
        this.log.warn(
          { routine: def.name, slot, err: message, failures: next.consecutiveFailures },
          'condition check failed',
        );
        return skip(`condition-failed: ${message}`, next, true);
      }
    }
    if (def.concurrencyPolicy === 'allow') {
      return {
        decision: { kind: 'fire', source, cancel: [], at: now },
        launcher: recordLaunchOutcome(launcher, { kind: 'enqueued' }, now, def),
      };
    }
    const others = (await this.runs.openRunsOfRoutine(def.name)).filter((r) => r.id !== runIdForSlot(def.name, slot));
    if (def.concurrencyPolicy === 'forbid' && others.length > 0) {
      return skip('overlap-forbid', recordLaunchOutcome(launcher, { kind: 'skipped' }, now, def));
    }
    const cancel = def.concurrencyPolicy === 'replace' ? others.map((r) => r.id) : [];
    return {
      decision: { kind: 'fire', source, cancel, at: now },
      launcher: recordLaunchOutcome(launcher, { kind: 'enqueued' }, now, def),
    };
  }

  private async claim(routine: string, slot: number, value: string, ttlMs: number, token: string): Promise<boolean> {
    const redis = withDroverScripts(this.conns.command);
    const res = await redis.claimSlot(
      this.keys.core('leader'),
      this.keys.core('slot', routine, slot),
      token,
      value,
      ttlMs,
    );
    if (res === ScriptCode.StaleToken) throw new StaleLeaderError(routine);
    return res === 1;
  }

  /** Finishes a claimed slot whose run was never written (its claimer died half-way). */
  private async completeIfAbandoned(
    def: Routine,
    slot: number,
    settled: boolean,
    result: DispatchResult,
  ): Promise<void> {
    const decision = decodeDecision(await this.conns.command.get(this.keys.core('slot', def.name, slot)));
    if (!decision) return;
    const age = this.clock.now() - decision.at;
    // An armed claim was made at least a fire ahead of its slot: if its run is missing by the time
    // the slot is dispatched, its maker died between claiming and enqueueing (a killed leader).
    const armed = decision.kind === 'fire' && decision.armed === true;
    if ((!settled && !armed && age < CLAIM_SETTLE_MS) || age > CLAIM_COMPLETION_WINDOW_MS) return;
    const id = runIdForSlot(def.name, slot);
    if (decision.kind === 'fire' && (await this.runs.get(id))) return;
    this.log.warn(
      { routine: def.name, slot, run: id, decision: decision.kind },
      'completing a slot whose claimer died half-way',
    );
    await this.apply(def, id, slot, decision, result);
  }

  /** Writes what was decided; idempotent (a skip record or run that exists is left as it is). */
  private async apply(def: Routine, id: string, slot: number, d: SlotDecision, result: DispatchResult): Promise<void> {
    if (d.kind === 'skip') {
      const { created } = (await this.runs.recordSkipped({
        id,
        routine: def.name,
        jobType: def.jobType,
        queue: def.queue,
        source: d.source,
        scheduledFor: slot,
        reason: d.reason,
      })) as { created?: boolean };
      if (created === false) return;
      this.metrics.scheduleFires.inc({ outcome: d.failed ? 'failed' : 'skipped' });
      if (d.failed) result.failed.push({ id, error: d.reason });
      else {
        this.metrics.runsTotal.inc({ queue: def.queue, job_type: def.jobType, status: 'skipped' });
        result.skipped.push({ id, reason: d.reason });
      }
      return;
    }
    for (const other of d.cancel) await this.runs.cancel(other, `replaced by ${id}`);
    const { created } = await this.runs.enqueue(this.runFor(def, id, slot, d.source));
    if (!created) return;
    this.metrics.scheduleFires.inc({ outcome: 'enqueued' });
    result.enqueued.push(id);
  }

  private runFor(def: Routine, id: string, slot: number, source: 'schedule' | 'catch-up'): NewRunRequest {
    return {
      id,
      routine: def.name,
      jobType: def.jobType,
      queue: def.queue,
      source,
      scheduledFor: slot,
      payload: def.payload,
      priority: priorityValue(def.priority),
      maxAttempts: def.maxAttempts,
      timeoutMs: def.timeoutMs,
      backoff: def.backoff,
      createdBy: 'scheduler',
    };
  }

  /** Cursor, launcher bookkeeping, the last run and the armed slot, in one round trip. */
  private async saveState(
    routine: string,
    cursor: number | undefined,
    before: RoutineState,
    after: LauncherState,
    result: DispatchResult,
    armed?: { slots: number[]; queue: string },
  ): Promise<void> {
    const launcherChanged =
      before.consecutiveFailures !== after.consecutiveFailures ||
      before.nextAttemptAt !== after.nextAttemptAt ||
      before.disabledReason !== after.disabledReason;
    const last = result.enqueued.at(-1) ?? result.skipped.at(-1)?.id ?? result.failed.at(-1)?.id;
    if (cursor === undefined && !launcherChanged && !last && !armed) return;
    await this.routinesStore.advanceCursor(routine, cursor, {
      ...(armed ? { armedSlots: armed.slots, armedQueue: armed.queue } : {}),
      ...(launcherChanged
        ? {
            consecutiveFailures: after.consecutiveFailures,
            nextAttemptAt: after.nextAttemptAt,
            disabledReason: after.disabledReason,
          }
        : {}),
      ...(last ? { lastRunId: last, lastFiredAt: this.clock.now() } : {}),
    });
    if (after.disabledReason && !before.disabledReason) {
      this.log.error({ routine, reason: after.disabledReason }, 'routine disabled after repeated launch failures');
      // The leader's reconciler drops the Job Scheduler of a disabled routine.
      await this.conns.command.publish(this.routinesStore.changesChannel, routine);
    }
  }
}

/** A leader-only dispatch presented a fencing token that is no longer current. */
export class StaleLeaderError extends Error {
  constructor(routine: string) {
    super(`stale leader epoch refused while dispatching "${routine}"`);
    this.name = 'StaleLeaderError';
  }
}
