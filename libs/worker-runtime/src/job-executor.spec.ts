import pino from 'pino';
import { z } from 'zod';
import { AttemptAbort } from './attempt-abort';
import { JobCanceledError } from './errors/job-canceled.error';
import { LeaseLostError } from './errors/lease-lost.error';
import { PermanentError } from './errors/permanent.error';
import { WorkerShutdownError } from './errors/worker-shutdown.error';
import type { JobContext } from './job-context';
import type { RegisteredHandler } from './handler-registry.service';
import { executeAttempt } from './job-executor';
import { runLogger } from './run-logger';

function handler(
  handle: (payload: unknown, ctx: JobContext) => unknown,
  meta: Partial<RegisteredHandler['meta']> = {},
): RegisteredHandler {
  return { meta: { jobType: 't', ...meta }, instance: { handle }, name: 'T' };
}

function run(h: RegisteredHandler, payload: unknown = {}, timeoutMs = 10_000, abort = new AttemptAbort()) {
  const ctx: JobContext = {
    get signal() {
      return abort.signal;
    },
    run: {} as JobContext['run'],
    log: runLogger(pino({ level: 'silent' }), () => undefined),
    progress: async () => undefined,
    checkpoint: async () => undefined,
    lastCheckpoint: undefined,
    children: async () => [],
    addChildren: async () => [],
    waitForChildren: async () => undefined,
  };
  return Promise.resolve(executeAttempt({ handler: h, payload, ctx, timeoutMs, abort }));
}

/** Resolves once the handler has seen its signal abort; the handler itself never settles on its own. */
function waitingForAbort(seen: { reason?: unknown }) {
  return (_: unknown, ctx: JobContext) =>
    new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        seen.reason = ctx.signal.reason;
        reject(new Error('aborted'));
      });
    });
}

describe('executeAttempt', () => {
  it('succeeds with what a synchronous or asynchronous handler returns', async () => {
    await expect(run(handler(() => 42))).resolves.toEqual({ kind: 'succeeded', result: 42 });
    await expect(run(handler(async () => ({ ok: true })))).resolves.toEqual({
      kind: 'succeeded',
      result: { ok: true },
    });
  });

  it('validates and parses the payload before the handler runs; invalid is permanent', async () => {
    const calls: unknown[] = [];
    const h = handler((p) => calls.push(p), { payload: z.object({ n: z.coerce.number() }) });
    await expect(run(h, { n: '7' })).resolves.toMatchObject({ kind: 'succeeded' });
    expect(calls).toEqual([{ n: 7 }]);
    const bad = await run(h, { n: 'x' });
    expect(bad).toMatchObject({
      kind: 'failed',
      recordKind: 'invalid-payload',
      failure: { kind: 'error', permanent: true, message: expect.stringMatching(/^invalid payload: n: /) },
    });
    expect(calls).toHaveLength(1);
  });

  it('fails an invalid result permanently', async () => {
    const h = handler(() => ({ status: 'x' }), { result: z.object({ status: z.number() }) });
    await expect(run(h)).resolves.toMatchObject({
      kind: 'failed',
      recordKind: 'permanent',
      failure: { message: expect.stringMatching(/^handler returned an invalid result: status:/) },
    });
  });

  it('tells a retryable error from a PermanentError, thrown or rejected', async () => {
    await expect(
      run(
        handler(() => {
          throw new Error('flaky');
        }),
      ),
    ).resolves.toMatchObject({ kind: 'failed', recordKind: 'error', failure: { message: 'flaky', permanent: false } });
    await expect(
      run(
        handler(async () => {
          throw new PermanentError('gone');
        }),
      ),
    ).resolves.toMatchObject({ kind: 'failed', recordKind: 'permanent', failure: { permanent: true } });
  });

  it('times out: aborts the signal and fails the attempt as a timeout even if the handler ignores it', async () => {
    const seen: { reason?: unknown } = {};
    const started = Date.now();
    const outcome = await run(handler(waitingForAbort(seen)), {}, 50);
    expect(outcome).toMatchObject({ kind: 'failed', recordKind: 'timeout', failure: { kind: 'timeout' } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((seen.reason as Error).name).toBe('JobTimeoutError');
    // A handler that never looks at its signal is still cut off.
    await expect(
      run(
        handler(() => new Promise(() => undefined)),
        {},
        30,
      ),
    ).resolves.toMatchObject({
      recordKind: 'timeout',
    });
  });

  it.each([
    [new JobCanceledError('replaced'), { kind: 'canceled', reason: 'replaced' }],
    [new WorkerShutdownError(), { kind: 'interrupted' }],
    [new LeaseLostError(), { kind: 'lease-lost' }],
  ])('settles at once when aborted with %s', async (reason, expected) => {
    const abort = new AttemptAbort();
    const seen: { reason?: unknown } = {};
    const pending = run(handler(waitingForAbort(seen)), {}, 10_000, abort);
    await new Promise((r) => setImmediate(r));
    abort.abort(reason);
    await expect(pending).resolves.toEqual(expected);
    expect(seen.reason).toBe(reason);
  });

  it('does not start a handler whose attempt was aborted before it began', async () => {
    const abort = new AttemptAbort();
    abort.abort(new JobCanceledError('too late'));
    let called = false;
    await expect(
      run(
        handler(() => (called = true)),
        {},
        1000,
        abort,
      ),
    ).resolves.toEqual({
      kind: 'canceled',
      reason: 'too late',
    });
    expect(called).toBe(false);
  });

  it('ends an attempt aborted before it began as aborted, even when its payload is invalid', async () => {
    const abort = new AttemptAbort();
    abort.abort(new JobCanceledError('too late'));
    const typed = handler(() => 'ran', { payload: z.strictObject({ n: z.number() }) });
    await expect(run(typed, { n: 'x' }, 1000, abort)).resolves.toEqual({ kind: 'canceled', reason: 'too late' });
  });
});

describe('AttemptAbort', () => {
  it('creates an already-aborted signal when read after the abort, and keeps the first reason', () => {
    const abort = new AttemptAbort();
    const first = new JobCanceledError('a');
    abort.abort(first);
    abort.abort(new JobCanceledError('b'));
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(first);
    expect(abort.reason).toBe(first);
  });
});

describe('executeAttempt with a synchronous handler', () => {
  it('answers synchronously, without a promise', () => {
    const abort = new AttemptAbort();
    const ctx = {
      signal: abort.signal,
      run: {} as JobContext['run'],
      log: runLogger(pino({ level: 'silent' }), () => undefined),
      progress: async () => undefined,
      checkpoint: async () => undefined,
      lastCheckpoint: undefined,
      children: async () => [],
      addChildren: async () => [],
      waitForChildren: async () => undefined,
    };
    const outcome = executeAttempt({ handler: handler(() => 'done'), payload: {}, ctx, timeoutMs: 1000, abort });
    expect(outcome).toEqual({ kind: 'succeeded', result: 'done' });
  });
});
