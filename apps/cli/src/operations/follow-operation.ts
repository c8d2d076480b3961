import { ok, type SseEvent } from '@drover/api-client';
import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { ExitCode } from '../exit-codes';
import { progressLine, type Operation } from './progress-bar';

/** Events read in the background, handed over in batches; `next` waits for one or a timeout. */
class EventInbox {
  private readonly queued: SseEvent[] = [];
  private wake?: () => void;
  ended = false;

  push(e: SseEvent): void {
    this.queued.push(e);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  /** What arrived, waiting up to `ms` for the first; empty after a quiet `ms`. */
  async next(ms: number): Promise<SseEvent[]> {
    if (this.queued.length === 0 && !this.ended) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    } else if (this.queued.length === 0) {
      await new Promise((r) => setTimeout(r, ms));
    }
    return this.queued.splice(0);
  }
}

/**
 * Starts a bulk operation and shows its progress until it ends. The `/events` stream is opened
 * before the operation starts, so no progress event is lost in between; whenever the stream is
 * quiet for a second (or gone) the operation itself is read, so a dropped stream only slows the
 * bar down. Exits 1 through a CliError unless the operation ends `done`.
 */
export async function runOperation(
  ctx: CliContext,
  start: () => Promise<{ operationId: string; matched: number }>,
): Promise<Operation> {
  const abort = new AbortController();
  const inbox = new EventInbox();
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const reader = (async () => {
    try {
      for await (const e of ctx.events('/api/v1/events?kinds=operation', abort.signal, opened)) inbox.push(e);
    } finally {
      inbox.end();
      opened();
    }
  })();
  try {
    await open;
    const { operationId } = await start();
    return await follow(ctx, operationId, inbox);
  } finally {
    abort.abort();
    await reader.catch(() => undefined);
  }
}

async function follow(ctx: CliContext, id: string, inbox: EventInbox): Promise<Operation> {
  const live = ctx.human && ctx.io.isTty;
  const c = ctx.colors;
  const read = () => ok(ctx.api.GET('/api/v1/operations/{id}', { params: { path: { id } } }));
  let op = await read();
  const show = () => {
    if (live) ctx.io.err(`\r\u001b[K${progressLine(op, c, ctx.io.columns ?? 80)}`);
    else ctx.stream('progress', op);
  };
  show();
  while (op.status === 'running') {
    const batch = await inbox.next(1000);
    let seen = false;
    for (const e of batch) {
      const data = JSON.parse(e.data) as { id?: string; data?: Partial<Operation> };
      if (data.id === id && data.data) {
        op = { ...op, ...data.data };
        seen = true;
      }
    }
    if (!seen) op = await read();
    show();
  }
  // The final numbers come from the operation itself, not from the last event seen.
  op = await read();
  if (live) ctx.io.err(`\r\u001b[K${progressLine(op, c, ctx.io.columns ?? 80)}\n`);
  ctx.stream('final', op);
  if (op.status !== 'done') {
    throw new CliError(
      `operation ${op.id} ended ${op.status}${op.error ? `: ${op.error}` : ''} after ${op.done} of ${op.matched}`,
      ExitCode.failed,
    );
  }
  return op;
}
