import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { ExitCode } from '../exit-codes';
import { LiveBlock } from '../output/live-block';
import { humanDuration } from '../output/time';
import { progressBar, progressText, type Batch } from './batch-columns';

/**
 * Follows a batch over `GET /batches/{id}/stream` until its callbacks were enqueued. On a terminal
 * its progress bar is one row redrawn in place; otherwise a line per change (`-o json`: one JSON
 * event per line). Exits 1 through a CliError if a run was parked or canceled, or on --timeout.
 * A dropped stream is reopened: each stream starts with the batch as it is.
 */
export async function watchBatch(ctx: CliContext, id: string, timeoutMs?: number): Promise<Batch> {
  const abort = new AbortController();
  const timer = timeoutMs !== undefined ? setTimeout(() => abort.abort(new Error('timeout')), timeoutMs) : undefined;
  const block = ctx.human && ctx.io.isTty ? new LiveBlock(ctx.io) : undefined;
  let last: Batch | undefined;
  let shown = '';
  const show = (b: Batch) => {
    const text = `${progressBar(ctx, b)} ${String(b.percent).padStart(3)}%  ${progressText(b)}`;
    if (!ctx.human || text === shown) return;
    shown = text;
    if (block) block.draw([text]);
    else ctx.io.out(`${text}\n`);
  };
  try {
    let ended = false;
    for (let reconnects = 0; !ended && !abort.signal.aborted; reconnects++) {
      if (reconnects > 20) throw new CliError(`the event stream of batch ${id} keeps dropping`, ExitCode.failed);
      if (reconnects > 0) await new Promise((r) => setTimeout(r, 1000));
      for await (const event of ctx.events(`/api/v1/batches/${encodeURIComponent(id)}/stream`, abort.signal)) {
        const data = JSON.parse(event.data) as Record<string, unknown>;
        ctx.stream(event.event, data);
        if (event.event === 'progress') show((last = data as unknown as Batch));
        else if (event.event === 'end') {
          ended = true;
          if (data.expired) throw new CliError(`batch ${id} expired while watching`, ExitCode.failed);
        }
      }
    }
  } finally {
    if (timer) clearTimeout(timer);
    block?.end();
  }
  if (abort.signal.aborted || !last) {
    throw new CliError(
      `batch ${id} is still open after ${humanDuration(timeoutMs ?? 0)} (--timeout); it keeps going`,
      ExitCode.failed,
    );
  }
  ctx.stream('final', last);
  if (ctx.human) {
    const fired = last.callbacks.filter((c) => c.runId).map((c) => `${c.on} → ${c.runId}`);
    ctx.io.out(`batch ${id} complete` + (fired.length ? `; callbacks: ${fired.join(', ')}` : '') + '\n');
  }
  if (last.parked + last.canceled > 0) {
    throw new CliError(`batch ${id}: ${last.parked} parked, ${last.canceled} canceled`, ExitCode.failed);
  }
  return last;
}
