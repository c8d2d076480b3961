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
import { DroverMetrics } from '@drover/metrics';
import { Clock } from '@drover/platform';
import { DroverKeys, RedisConnections, ScriptCode, withDroverScripts } from '@drover/redis';
import { RoutineStore, type RoutineState } from '@drover/store';
import { ConditionRegistry } from '../conditions/condition-registry.service';
import { RUN_SINK, type RunSink } from './run-sink';
import { slotClaimTtlMs } from './slot-claim';
import { planDue } from './plan-due';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';

export interface DispatchResult {
  enqueued: string[];
  skipped: { id: string; reason: string }[];
  failed: { id: string; error: string }[];
  /** Slots another dispatcher had already claimed. */
  duplicates: number;
}

/**
 * Turns a due routine into runs: every replica runs this for the fires BullMQ hands it, and the
 * leader for catch-up and watchdog repairs. At most one run per slot holds whoever calls, because
 * each slot is claimed (SET NX) before anything is written and run ids are derived from the slot.
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
    @Inject(SCHEDULER_OPTIONS) private readonly opts: SchedulerOptions,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.routinesStore = new RoutineStore(conns.command, keys);
  }

  /**
   * Handles every slot of `routine` due by now (at least up to `dueSlot`, which may be a hair in
   * the future on a skewed clock). `token` fences leader-only callers; fires pass none.
   */
  async dispatchDue(routine: string, dueSlot: number, token = ''): Promise<DispatchResult | undefined> {
    const record = await this.routinesStore.get(routine);
    if (!record || record.def.status === 'archived' || record.def.trigger.kind === 'manual') return undefined;
    const def = record.def;
    const state = await this.routinesStore.getState(routine);
    const now = Math.max(this.clock.now(), dueSlot);
    const cursor = state.lastSlot ?? state.since ?? record.createdAt;
    const plan = planDue(def, cursor, now, this.opts.missedAfterMs);
    const result: DispatchResult = { enqueued: [], skipped: [], failed: [], duplicates: 0 };
    const ttl = slotClaimTtlMs(def.trigger, now);
    for (const s of plan.skip) {
      const id = runIdForSlot(routine, s.slot);
      if (!(await this.claim(routine, s.slot, `skip:${s.reason}`, ttl, token))) {
        result.duplicates++;
        continue;
      }
      await this.skip(def, id, s.slot, s.reason, 'catch-up', result);
    }
    if (plan.unlisted) this.metrics.scheduleFires.inc({ outcome: 'skipped' }, plan.unlisted.count);
    let launcher: LauncherState = { ...state };
    for (const f of plan.fire) {
      const id = runIdForSlot(routine, f.slot);
      if (!(await this.claim(routine, f.slot, `fire:${id}`, ttl, token))) {
        result.duplicates++;
        continue;
      }
      launcher = await this.fire(def, id, f.slot, f.source, launcher, result);
    }
    if (plan.cursor > cursor) await this.routinesStore.advanceCursor(routine, plan.cursor);
    await this.saveLauncher(routine, state, launcher, result);
    return result;
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

  private async fire(
    def: Routine,
    id: string,
    slot: number,
    source: 'schedule' | 'catch-up',
    launcher: LauncherState,
    result: DispatchResult,
  ): Promise<LauncherState> {
    if (def.status === 'paused') {
      await this.skip(def, id, slot, 'paused', source, result);
      return launcher;
    }
    const blocked = launchBlocker(launcher, this.clock.now());
    if (blocked) {
      await this.skip(def, id, slot, blocked.reason, source, result);
      return launcher;
    }
    if (def.condition) {
      try {
        const ac = new AbortController();
        const ok = await this.conditions.evaluate(def.condition, {
          routine: def.name,
          slot,
          payload: def.payload,
          signal: ac.signal,
        });
        if (!ok) {
          await this.skip(def, id, slot, 'condition-false', source, result);
          return recordLaunchOutcome(launcher, { kind: 'skipped' }, this.clock.now(), def);
        }
      } catch (err) {
        const message = (err as Error).message ?? String(err);
        const next = recordLaunchOutcome(launcher, { kind: 'failed', error: message }, this.clock.now(), def);
        await this.skip(def, id, slot, `condition-failed: ${message}`.slice(0, 500), source, result, 'failed');
        result.failed.push({ id, error: message });
        this.log.warn(
          { routine: def.name, slot, err: message, failures: next.consecutiveFailures },
          'condition check failed',
        );
        return next;
      }
    }
    const open = await this.runs.openRunsOfRoutine(def.name);
    const others = open.filter((r) => r.id !== id);
    if (def.concurrencyPolicy === 'forbid' && others.length > 0) {
      await this.skip(def, id, slot, 'overlap-forbid', source, result);
      return recordLaunchOutcome(launcher, { kind: 'skipped' }, this.clock.now(), def);
    }
    if (def.concurrencyPolicy === 'replace') {
      for (const r of others) await this.runs.cancel(r.id, `replaced by ${id}`);
    }
    await this.runs.enqueue({
      id,
      routine: def.name,
      jobType: def.jobType,
      queue: def.queue,
      source,
      scheduledFor: slot,
      payload: def.payload,
      priority: priorityValue(def.priority),
      maxAttempts: def.maxAttempts,
      createdBy: 'scheduler',
    });
    this.metrics.scheduleFires.inc({ outcome: 'enqueued' });
    result.enqueued.push(id);
    return recordLaunchOutcome(launcher, { kind: 'enqueued' }, this.clock.now(), def);
  }

  private async skip(
    def: Routine,
    id: string,
    slot: number,
    reason: string,
    source: 'schedule' | 'catch-up',
    result: DispatchResult,
    outcome: 'skipped' | 'failed' = 'skipped',
  ): Promise<void> {
    await this.runs.recordSkipped({
      id,
      routine: def.name,
      jobType: def.jobType,
      queue: def.queue,
      source,
      scheduledFor: slot,
      reason,
    });
    this.metrics.scheduleFires.inc({ outcome });
    if (outcome === 'skipped') {
      this.metrics.runsTotal.inc({ queue: def.queue, job_type: def.jobType, status: 'skipped' });
      result.skipped.push({ id, reason });
    }
  }

  private async saveLauncher(
    routine: string,
    before: RoutineState,
    after: LauncherState,
    result: DispatchResult,
  ): Promise<void> {
    const changed =
      before.consecutiveFailures !== after.consecutiveFailures ||
      before.nextAttemptAt !== after.nextAttemptAt ||
      before.disabledReason !== after.disabledReason;
    const last = result.enqueued.at(-1) ?? result.skipped.at(-1)?.id ?? result.failed.at(-1)?.id;
    if (!changed && !last) return;
    await this.routinesStore.patchState(routine, {
      consecutiveFailures: after.consecutiveFailures,
      nextAttemptAt: after.nextAttemptAt,
      disabledReason: after.disabledReason,
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
