import type { AttemptFailure, AttemptFailureKind } from '@drover/core';
import { JobCanceledError } from './errors/job-canceled.error';
import { JobTimeoutError } from './errors/job-timeout.error';
import { LeaseLostError } from './errors/lease-lost.error';
import { isPermanentError } from './errors/permanent.error';
import { WorkerShutdownError } from './errors/worker-shutdown.error';
import { WaitingForChildrenError } from './errors/waiting-for-children.error';
import type { JobContext } from './job-context';
import type { AttemptAbort } from './attempt-abort';
import type { RegisteredHandler } from './handler-registry.service';

/** How one attempt ended, decided without touching Redis. */
export type AttemptOutcome =
  | { kind: 'succeeded'; result: unknown }
  | { kind: 'failed'; failure: AttemptFailure; recordKind: AttemptFailureKind; error: Error }
  | { kind: 'canceled'; reason: string }
  /** The shutdown grace period ended: hand the run back. */
  | { kind: 'interrupted' }
  /** Another worker may hold the run now: record nothing. */
  | { kind: 'lease-lost' }
  /** The run waits for the children its handler added (ctx.waitForChildren): it starts again after them. */
  | { kind: 'waiting-children' };

export interface AttemptInput {
  handler: RegisteredHandler;
  payload: unknown;
  /** The handler's context; its `signal` is `abort.signal`. */
  ctx: JobContext;
  timeoutMs: number;
  abort: AttemptAbort;
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(typeof err === 'string' ? err : JSON.stringify(err));
}

function failed(err: unknown, recordKind: AttemptFailureKind): AttemptOutcome {
  const error = toError(err);
  // Drover's own message says it all; a stack into the runtime would only be noise.
  if (recordKind === 'invalid-payload' || recordKind === 'timeout') delete error.stack;
  if (recordKind === 'timeout')
    return { kind: 'failed', failure: { kind: 'timeout', message: error.message }, recordKind, error };
  const permanent = recordKind === 'permanent' || recordKind === 'invalid-payload';
  return {
    kind: 'failed',
    failure: { kind: 'error', message: error.message, ...(error.stack && { stack: error.stack }), permanent },
    recordKind,
    error,
  };
}

/** Maps an abort reason (or a handler error) to the attempt's outcome. */
function classify(err: unknown, abort: AttemptAbort): AttemptOutcome {
  const why: unknown = abort.reason ?? err;
  if (why instanceof JobTimeoutError) return failed(why, 'timeout');
  if (why instanceof JobCanceledError) return { kind: 'canceled', reason: why.reason };
  if (why instanceof WorkerShutdownError) return { kind: 'interrupted' };
  if (why instanceof LeaseLostError) return { kind: 'lease-lost' };
  if (err instanceof WaitingForChildrenError) return { kind: 'waiting-children' };
  return failed(err, isPermanentError(err) ? 'permanent' : 'error');
}

function describeIssues(error: { issues?: { path: PropertyKey[]; message: string }[] }): string {
  return (error.issues ?? [])
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/**
 * Runs one attempt: validates the payload, calls the handler, and settles as soon as the handler
 * returns or the signal aborts (timeout, cancel, shutdown, lease loss) — a handler that ignores
 * its signal cannot hold the attempt past its timeout. Never throws (nor rejects). Answers
 * synchronously when the handler does: no promise, timer or race for it.
 */
export function executeAttempt(input: AttemptInput): AttemptOutcome | Promise<AttemptOutcome> {
  const { handler, ctx, abort } = input;
  // Aborted before it began (canceled while the run was being started): its own word, even over
  // a payload it would have refused.
  if (abort.reason) return classify(abort.reason, abort);
  let payload = input.payload;
  if (handler.meta.payload) {
    const parsed = handler.meta.payload.safeParse(payload);
    if (!parsed.success)
      return failed(new Error(`invalid payload: ${describeIssues(parsed.error)}`), 'invalid-payload');
    payload = parsed.data;
  }
  let returned: unknown;
  try {
    returned = handler.instance.handle(payload, ctx);
  } catch (err) {
    return classify(err, abort);
  }
  // A handler that answered synchronously cannot be interrupted: no timer, no race.
  if (!isThenable(returned)) return succeeded(handler, returned);
  return raceAbort(input, returned);
}

async function raceAbort(input: AttemptInput, returned: PromiseLike<unknown>): Promise<AttemptOutcome> {
  const { handler, abort } = input;
  // setTimeout fires at once for delays past 2^31-1 ms; no real timeout is that long.
  const timer = setTimeout(
    () => abort.abort(new JobTimeoutError(input.timeoutMs)),
    Math.min(input.timeoutMs, 2 ** 31 - 1),
  );
  try {
    return succeeded(handler, await Promise.race([returned, abort.whenAborted()]));
  } catch (err) {
    return classify(err, abort);
  } finally {
    clearTimeout(timer);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function succeeded(handler: RegisteredHandler, result: unknown): AttemptOutcome {
  if (!handler.meta.result) return { kind: 'succeeded', result };
  const parsed = handler.meta.result.safeParse(result);
  if (!parsed.success) {
    return failed(new Error(`handler returned an invalid result: ${describeIssues(parsed.error)}`), 'permanent');
  }
  return { kind: 'succeeded', result: parsed.data };
}
