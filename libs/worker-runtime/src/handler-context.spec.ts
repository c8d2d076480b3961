import type { Job } from 'bullmq';
import pino from 'pino';
import { ManualClock } from '@drover/testing';
import { AttemptAbort } from './attempt-abort';
import { CheckpointNotJsonError } from './errors/checkpoint-not-json.error';
import { CheckpointTooLargeError } from './errors/checkpoint-too-large.error';
import { LeaseLostError } from './errors/lease-lost.error';
import { HandlerContext, type CheckpointSink } from './handler-context';
import type { RunLogSink } from './run-log';

const T = 1_764_145_000_000;

/** A context over a job held in memory; `saved` answers what the store would (true: stored). */
function context(opts: { checkpointed?: string; saved?: boolean; token?: string } = {}) {
  const job = { id: 'r-1', name: 't', data: { payload: {} }, attemptsStarted: 2, timestamp: T } as unknown as Job;
  const writes: { raw: string; token: string }[] = [];
  const sink: CheckpointSink = {
    clock: new ManualClock(T),
    store: {
      save: (_q: string, _id: string, token: string, raw: string) => {
        writes.push({ raw, token });
        return Promise.resolve(opts.saved ?? true);
      },
    },
  };
  const abort = new AttemptAbort();
  const ctx = new HandlerContext(
    job,
    { payload: {} },
    'q',
    2,
    3,
    { nameOf: (c: string) => c },
    abort,
    { log: pino({ level: 'silent' }) } as unknown as RunLogSink,
    sink,
    opts.checkpointed,
    'token' in opts ? opts.token : 'tok-1',
  );
  return { ctx, abort, writes };
}

describe('HandlerContext checkpoints', () => {
  it('reads the checkpoint the attempt began with, then its own once stored', async () => {
    const { ctx, writes } = context({ checkpointed: `{"at":${T - 1},"attempt":1,"size":10,"state":{"next":6}}` });
    expect(ctx.lastCheckpoint).toEqual({ next: 6 });
    await ctx.checkpoint({ next: 9 });
    expect(writes).toEqual([{ raw: `{"at":${T},"attempt":2,"size":10,"state":{"next":9}}`, token: 'tok-1' }]);
    expect(ctx.lastCheckpoint).toEqual({ next: 9 });
  });

  it('has none for a run that never checkpointed', () => {
    expect(context().ctx.lastCheckpoint).toBeUndefined();
  });

  it('refuses a state that is not plain JSON or too large before writing anything', async () => {
    const { ctx, writes, abort } = context();
    await expect(ctx.checkpoint({ at: new Date(T) })).rejects.toThrow(CheckpointNotJsonError);
    await expect(ctx.checkpoint({ at: new Date(T) })).rejects.toMatchObject({ code: 'checkpoint-not-json' });
    await expect(ctx.checkpoint('x'.repeat(64 * 1024))).rejects.toThrow(CheckpointTooLargeError);
    expect(writes).toEqual([]);
    expect(abort.reason).toBeUndefined();
  });

  it('a refused write (the attempt no longer holds the run) rejects with LeaseLostError and aborts the attempt', async () => {
    const { ctx, abort } = context({ checkpointed: `{"at":1,"attempt":1,"size":1,"state":1}`, saved: false });
    await expect(ctx.checkpoint({ next: 1 })).rejects.toThrow(LeaseLostError);
    expect(abort.reason).toBeInstanceOf(LeaseLostError);
    expect(ctx.signal.aborted).toBe(true);
    // What it had stays what it reads.
    expect(ctx.lastCheckpoint).toBe(1);
  });
});
