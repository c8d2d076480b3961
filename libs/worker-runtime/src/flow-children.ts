import {
  DEFAULT_QUEUE,
  InvalidOptionsError,
  priorityValue,
  validatePayload,
  type FlowChildFailure,
  type Priority,
} from '@drover/core';
import { adHocRun, jobTypeIssue, startOf, type NewFlow } from '@drover/store';

/** A child a running handler adds (`ctx.addChildren`): what `POST /flows` takes for a run, and its own children. */
export interface ChildRun {
  jobType: string;
  payload: unknown;
  /** Default: `default`. */
  queue?: string;
  priority?: Priority;
  maxAttempts?: number;
  /** A leaf's: start this long after it is added. */
  delayMs?: number;
  /** `fail` (default): its parking parks this run; `ignore`: this run continues and reads the failure. */
  onFailure?: FlowChildFailure;
  children?: ChildRun[];
}

/**
 * The runs of children a handler adds, each checked (job type, plain-JSON payload) and made by the
 * run maker like an ad-hoc run, in the name of the parent's producer.
 *
 * @throws InvalidOptionsError, InvalidPayloadError
 */
export function childFlows(
  children: readonly ChildRun[],
  ctx: { now: number; random: () => number; createdBy: string },
): NewFlow[] {
  if (!Array.isArray(children) || children.length === 0)
    throw new InvalidOptionsError('addChildren', ['children: give at least one child run']);
  return children.map((c) => {
    const issue = jobTypeIssue(c.jobType);
    if (issue) throw new InvalidOptionsError('addChildren', [issue]);
    validatePayload(c.jobType, undefined, c.payload);
    const run = adHocRun(
      {
        jobType: c.jobType,
        payload: c.payload,
        ...(c.queue !== undefined && { queue: c.queue }),
        ...startOf({ ...(c.delayMs !== undefined && { delayMs: c.delayMs }) }, ctx.now),
        priority: priorityValue(c.priority),
        ...(c.maxAttempts !== undefined && { maxAttempts: c.maxAttempts }),
        createdBy: ctx.createdBy,
      },
      { now: ctx.now, random: ctx.random, defaultQueue: DEFAULT_QUEUE },
    );
    return {
      run,
      ...(c.onFailure && { onFailure: c.onFailure }),
      ...(c.children?.length && { children: childFlows(c.children, ctx) }),
    };
  });
}
