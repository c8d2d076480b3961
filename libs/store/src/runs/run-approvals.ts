import {
  decideApproval,
  releaseDelayMs,
  RunNotFoundError,
  type ApprovalDecision,
  type ApprovalGate,
  type Retention,
} from '@drover/core';
import { withDroverScripts, type Clock, type RedisClient } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import { NotAwaitingApprovalError } from './not-awaiting-approval.error';
import { runJobDataOf } from './run-job-data';
import type { RunTombstones } from './run-tombstones';
import type { RunView } from './run-view';

/** An operator's approve or reject: who, and optionally why. */
export interface ApprovalAsk {
  by: string;
  reason?: string;
}

export interface RunApprovalsDeps {
  redis: RedisClient;
  bull: BullQueues;
  tombstones: RunTombstones;
  clock: Clock;
  /** Which defined queue holds the run's job. */
  locate: (id: string) => Promise<string | undefined>;
  view: (queue: string, id: string) => Promise<RunView | undefined>;
  retention: (queue: string) => Promise<Retention>;
  startBuffered: (routine: string) => Promise<unknown>;
}

/**
 * Approves and rejects runs held back by their approval gate. A gated run is a BullMQ job added
 * delayed until its expiry (or a year ahead, as buffer-one holds a run) with its gate in its data.
 * The decision is one script: the gate flips only if the job is still delayed and its data is
 * exactly what was read and decided on (core's decideApproval), so of racing decisions exactly one
 * is taken, and none after the expiry released the run. Then the run is let go: an approved one is
 * promoted by BullMQ's own promote (or its delay set to when it was due); a rejected one is removed
 * and kept as a `canceled` record. A crash between the two steps leaves a decided gate on a held
 * job: the worker that gets it at its expiry honours the decision, and the next approve or reject
 * (refused: the run no longer waits) lets it go at once.
 */
export class RunApprovals {
  constructor(private readonly deps: RunApprovalsDeps) {}

  approve(id: string, ask: ApprovalAsk): Promise<RunView> {
    return this.decide(id, 'approve', ask);
  }

  reject(id: string, ask: ApprovalAsk): Promise<RunView> {
    return this.decide(id, 'reject', ask);
  }

  private async decide(id: string, kind: ApprovalDecision['kind'], ask: ApprovalAsk): Promise<RunView> {
    const { redis, bull, clock } = this.deps;
    const queue = await this.deps.locate(id);
    if (!queue) throw await this.refusal(id, undefined, 'not-waiting');
    const jobKey = bull.keys.bullJob(queue, id);
    const delayedKey = bull.keys.bullDelayed(queue);
    for (let round = 0; round < 3; round++) {
      const [raw, score] = await Promise.all([redis.hget(jobKey, 'data'), redis.zscore(delayedKey, id)]);
      if (raw === null) throw await this.refusal(id, undefined, 'not-waiting');
      const data = runJobDataOf(JSON.parse(raw));
      const at = clock.now();
      const decision = { kind, by: ask.by, at, ...(ask.reason !== undefined && { reason: ask.reason }) };
      const decided = decideApproval(data.ap, score !== null, decision);
      if ('refused' in decided) {
        // Decided, still held: a crash came between deciding and letting go. Let it go now.
        if (data.ap && data.ap.s !== 'w' && score !== null) await this.letGo(queue, id, data.ap).catch(() => undefined);
        throw await this.refusal(id, queue, decided.refused);
      }
      const next = JSON.stringify({ ...data, ap: decided.gate });
      const taken = await withDroverScripts(redis).decideApproval(jobKey, delayedKey, id, raw, next);
      if (taken === 1) return this.letGo(queue, id, decided.gate);
    }
    // The job's data kept changing under the decision: it is no longer simply waiting.
    throw await this.refusal(id, queue, 'not-waiting');
  }

  /** Lets a decided run go: an approved one to its queue (or its due time), a rejected one to its record. */
  private async letGo(queue: string, id: string, gate: ApprovalGate): Promise<RunView> {
    const q = this.deps.bull.get(queue);
    if (gate.s === 'a') {
      const job = await q.getJob(id);
      const delay = releaseDelayMs(gate, this.deps.clock.now());
      try {
        if (delay > 0) await job?.changeDelay(delay);
        else await job?.promote();
      } catch {
        // No longer delayed: its expiry released it meanwhile, and the worker runs it (approved).
      }
      return (await this.deps.view(queue, id)) ?? (await this.gone(id));
    }
    const view = await this.deps.view(queue, id);
    if (!view) return this.gone(id);
    const now = this.deps.clock.now();
    await this.deps.tombstones.put(view, await this.deps.retention(queue), now);
    // BullMQ refuses to remove a locked job: its expiry handed it to a worker, which ends it rejected.
    if ((await q.remove(id)) !== 1) await this.deps.tombstones.delete(id);
    else if (view.routine !== null) await this.deps.startBuffered(view.routine).catch(() => undefined);
    return view;
  }

  private async gone(id: string): Promise<RunView> {
    const run = await this.deps.tombstones.get(id);
    if (!run) throw new RunNotFoundError(id);
    return run;
  }

  /** The error for a refused decision: the run is unknown, or says what it is now. */
  private async refusal(id: string, queue: string | undefined, why: 'not-gated' | 'not-waiting') {
    const run = (queue && (await this.deps.view(queue, id))) || (await this.deps.tombstones.get(id));
    if (!run) return new RunNotFoundError(id);
    return new NotAwaitingApprovalError(id, run.status, run.approval ? why : 'not-gated');
  }
}
