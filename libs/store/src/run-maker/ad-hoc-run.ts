import { MAX_JOB_TYPE_LENGTH, type JobContract } from '@drover/core';
import type { NewRun } from '../runs/new-run';
import type { RunView } from '../runs/run-view';
import { newRunId } from './run-id';

/** When an ad-hoc run starts, from `runAt` or `delayMs` (epoch ms / ms; at most one is given). */
export interface RunStart {
  /** 0 = start now. */
  delayMs: number;
  /** The requested start, or null to start now. */
  scheduledFor: number | null;
}

/** Resolves a requested start against `now`: a past `runAt` means now; `delayMs` 0 is no request. */
export function startOf(req: { runAt?: number; delayMs?: number }, now: number): RunStart {
  const at = req.runAt ?? (req.delayMs ? now + req.delayMs : undefined);
  return { delayMs: at === undefined ? 0 : Math.max(0, Math.ceil(at - now)), scheduledFor: at ?? null };
}

/** Why a job type name cannot be enqueued (blank or too long), as `jobType: …`; undefined when it can. */
export function jobTypeIssue(jobType: string): string | undefined {
  if (jobType.trim() && jobType.length <= MAX_JOB_TYPE_LENGTH) return undefined;
  return `jobType: ${JSON.stringify(jobType)} must be 1-${MAX_JOB_TYPE_LENGTH} characters`;
}

/** An ad-hoc request (`POST /jobs`, `DroverClient.enqueue`) whose options and payload have passed. */
export interface AdHocRequest extends RunStart {
  jobType: string;
  /** Its contract, if the producer has one: default queue and attempts. */
  contract?: JobContract;
  payload: unknown;
  queue?: string;
  priority: number;
  maxAttempts?: number;
  idempotencyKey?: string;
  /** The producer's name (the client module's `name`, the api token's). */
  createdBy: string;
}

/**
 * A new ad-hoc run (source `api`, no routine). Its id is the idempotency key's when there is one,
 * else fresh; queue and attempts default to the contract's, then to `defaultQueue` and the
 * queue's policy. The payload must have been checked (core's `validatePayload`).
 */
export function adHocRun(req: AdHocRequest, ctx: { now: number; random: () => number; defaultQueue: string }): NewRun {
  const key = req.idempotencyKey;
  return {
    id:
      key !== undefined
        ? newRunId({ kind: 'key', idempotencyKey: key })
        : newRunId({ kind: 'ad-hoc', now: ctx.now, random: ctx.random }),
    routine: null,
    jobType: req.jobType,
    queue: req.queue ?? req.contract?.queue ?? ctx.defaultQueue,
    source: 'api',
    scheduledFor: req.scheduledFor,
    payload: req.payload,
    priority: req.priority,
    delayMs: req.delayMs,
    maxAttempts: req.maxAttempts ?? req.contract?.maxAttempts,
    createdBy: req.createdBy,
    // Checked by the producer; the store need not walk it again.
    payloadChecked: true,
    ...(key === undefined ? { freshId: true } : { anyQueue: true }),
  };
}

/** An idempotency key already bound to a run of another job type or queue (what the producer reports). */
export interface KeyConflict {
  idempotencyKey: string;
  runId: string;
  existing: { jobType: string; queue: string };
  requested: { jobType: string; queue: string };
}

/** The conflict when `existing` (the run a key names) is not the operation `run` asks for. */
export function keyConflict(existing: RunView, run: NewRun, idempotencyKey: string): KeyConflict | undefined {
  if (existing.jobType === run.jobType && existing.queue === run.queue) return undefined;
  return {
    idempotencyKey,
    runId: existing.id,
    existing: { jobType: existing.jobType, queue: existing.queue },
    requested: { jobType: run.jobType, queue: run.queue },
  };
}
