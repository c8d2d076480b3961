import { Inject, Injectable } from '@nestjs/common';
import { slotSkipReason, slotTrigger, type Routine } from '@drover/core';
import { DroverMetrics } from '@drover/metrics';
import { newRunId, runOfRoutine, slotDedup, type SlotDecision } from '@drover/store';
import { RUN_SINK, type NewRunRequest, type RunSink } from './run-sink';

/** What one dispatch wrote, by run id. */
export interface DispatchResult {
  enqueued: string[];
  skipped: { id: string; reason: string }[];
  failed: { id: string; error: string }[];
  /** Slots another dispatcher had already claimed. */
  duplicates: number;
}

export const emptyResult = (): DispatchResult => ({ enqueued: [], skipped: [], failed: [], duplicates: 0 });

/** Where a slot's run goes: its revision, and for a run created ahead of its slot, the version it was armed for. */
export interface SlotTarget {
  slot: number;
  rev: number;
  now: number;
  armedVersion?: number;
  /** When the run is planned to start (core's `plannedStart`: the slot plus its jitter); default the slot. */
  start?: number;
  /** For an armed run: how long before its slot it is released to the workers, which start it at the slot. */
  leadMs?: number;
}

/**
 * Writes what was decided for a slot: the run (a BullMQ job whose id is the slot's run id, with a
 * deduplication marker that outlives retention) or the skipped record. Idempotent: applying the
 * same decision twice creates one run and one record, so a pending claim can be completed by
 * anyone.
 */
@Injectable()
export class SlotApplier {
  constructor(
    @Inject(RUN_SINK) private readonly runs: RunSink,
    private readonly metrics: DroverMetrics,
  ) {}

  async apply(def: Routine, target: SlotTarget, d: SlotDecision, result: DispatchResult): Promise<void> {
    const id = newRunId({ kind: 'slot', routine: def.name, slot: target.slot, rev: target.rev });
    // Which of a `triggers` list the slot came from, recorded on its run or skipped record.
    const trigger = def.triggers ? slotTrigger(def, target.slot) : undefined;
    const attributed = trigger !== undefined ? { trigger } : {};
    if (d.kind === 'skip') {
      const { created } = await this.runs.recordSkipped({
        id,
        routine: def.name,
        jobType: def.jobType,
        queue: def.queue,
        source: d.source,
        scheduledFor: target.slot,
        reason: d.reason,
        ...attributed,
      });
      if (!created) return;
      const reason = slotSkipReason(d.reason);
      this.metrics.slots.inc({ outcome: reason === 'superseded' ? 'superseded' : 'skipped', reason });
      this.metrics.scheduleFires.inc({ outcome: d.failed ? 'failed' : 'skipped' });
      if (d.failed) result.failed.push({ id, error: d.reason });
      else {
        this.metrics.runsTotal.inc({ queue: def.queue, job_type: def.jobType, status: 'skipped' });
        result.skipped.push({ id, reason: d.reason });
      }
      return;
    }
    for (const other of d.cancel) await this.runs.cancel(other, `replaced by ${id}`);
    // A selector routine's slot makes one run per chosen key: `<run id>`, then `<run id>.k1`, ….
    const runs = d.keys?.length
      ? d.keys.map((key, keyIndex) => {
          const keyId = newRunId({ kind: 'slot', routine: def.name, slot: target.slot, rev: target.rev, keyIndex });
          return this.runFor(def, keyId, target, d.source, key, trigger);
        })
      : [this.runFor(def, id, target, d.source, undefined, trigger)];
    let counted = false;
    for (const run of runs) {
      const { created } = await this.runs.enqueue(run);
      if (!created) continue;
      // One slot, however many selector keys it runs.
      if (!counted) this.metrics.slots.inc({ outcome: 'ran', reason: 'none' });
      counted = true;
      this.metrics.scheduleFires.inc({ outcome: 'enqueued' });
      result.enqueued.push(run.id);
    }
  }

  private runFor(
    def: Routine,
    id: string,
    t: SlotTarget,
    source: 'schedule' | 'catch-up',
    key?: string,
    trigger?: string,
  ): NewRunRequest {
    const start = Math.max(t.slot, t.start ?? t.slot);
    return runOfRoutine(def, {
      id,
      source,
      scheduledFor: t.slot,
      ...(start > t.slot && { startAt: start }),
      createdBy: 'scheduler',
      ...(key !== undefined && { key }),
      ...(trigger !== undefined && { trigger }),
      // Never before its planned start (its slot, or the slot plus its jitter), whatever the order
      // fires arrive in: BullMQ holds it until then, or (armed, with a lead) until shortly before,
      // and the worker that takes it holds it until then.
      delayMs: Math.max(0, start - (t.leadMs ?? 0) - t.now),
      dedup: slotDedup(id, t.slot, t.now),
      ...(t.armedVersion !== undefined && { armedVersion: t.armedVersion }),
    });
  }
}
