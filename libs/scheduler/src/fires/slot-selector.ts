import { Inject, Injectable } from '@nestjs/common';
import {
  afterLook,
  idleTick,
  resetIdle,
  selectCandidates,
  type Candidate,
  type IdleState,
  type Routine,
} from '@drover/core';
import { CandidateRegistry } from '../candidates/candidate-registry.service';
import { RUN_SINK, type RunSink } from './run-sink';

/** What the slots of one dispatch share for selection: one provider answer, and the keys already chosen. */
export interface SelectionCache {
  candidates?: Promise<Candidate[] | { error: string }>;
  picked: Set<string>;
}

export type Selection =
  | { kind: 'fire'; keys: string[]; idle: IdleState }
  /** Nothing enqueued, healthy: the tick was skipped by idle backoff, or nothing is owed. */
  | { kind: 'idle'; reason: 'idle-backoff' | 'nothing-owed'; idle: IdleState }
  /** The provider failed (threw, timed out, answered nonsense): a launch failure. */
  | { kind: 'failed'; error: string };

/**
 * A selector routine's tick: unless idle backoff skips it, asks the routine's candidate provider
 * what is owed and picks the top `maxPerTick` with core's `selectCandidates`, leaving out keys
 * that already have a run queued or running (an override included). Nothing owed backs off
 * (core's `afterLook`); a run of the routine succeeding since resets the backoff.
 */
@Injectable()
export class SlotSelector {
  constructor(
    private readonly providers: CandidateRegistry,
    @Inject(RUN_SINK) private readonly runs: RunSink,
  ) {}

  async choose(
    def: Routine,
    slot: number,
    ctx: SelectionCache & { idle: IdleState; open: { key?: string }[] },
    now: number,
  ): Promise<Selection> {
    const selector = def.selector!;
    let idle = ctx.idle;
    if (idle.multiplier > 1 && idle.since !== undefined && (await this.succeededSince(def.name, idle.since))) {
      idle = resetIdle();
    }
    const tick = idleTick(idle);
    if (!tick.look) return { kind: 'idle', reason: 'idle-backoff', idle: tick.next };
    ctx.candidates ??= this.fetch(def, slot);
    const answer = await ctx.candidates;
    if ('error' in answer) return { kind: 'failed', error: answer.error };
    const pendingKeys = new Set([...ctx.open.flatMap((r) => (r.key === undefined ? [] : [r.key])), ...ctx.picked]);
    const chosen = selectCandidates(answer, {
      now,
      maxPerTick: selector.maxPerTick,
      depthWeight: selector.depthWeight,
      pendingKeys,
    });
    const next = afterLook(tick.next, chosen.length > 0, now);
    if (chosen.length === 0) return { kind: 'idle', reason: 'nothing-owed', idle: next };
    for (const c of chosen) ctx.picked.add(c.key);
    return { kind: 'fire', keys: chosen.map((c) => c.key), idle: next };
  }

  private async fetch(def: Routine, slot: number): Promise<Candidate[] | { error: string }> {
    try {
      const { provider, args } = def.selector!;
      return await this.providers.candidates(
        provider,
        { routine: def.name, slot, ...(args && { args }) },
        def.conditionTimeoutMs,
      );
    } catch (err) {
      return { error: String((err as Error)?.message ?? err).slice(0, 400) };
    }
  }

  /** Whether a run of the routine succeeded after `since` (the newest few are enough). */
  private async succeededSince(routine: string, since: number): Promise<boolean> {
    const recent = await this.runs.listByRoutine(routine, { limit: 5, status: 'succeeded' });
    return recent.some((r) => (r.finishedAt ?? 0) > since);
  }
}
