import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { ExitCode } from '../exit-codes';
import { LiveBlock } from '../output/live-block';
import { humanDuration } from '../output/time';
import type { Run } from './run-columns';

export interface FollowOptions {
  /** Give up after this long (ms): exit 1 saying the run is still going. */
  timeoutMs?: number;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/**
 * Follows one run over `GET /runs/{id}/events` until it settles. On a terminal its status and
 * progress are a block redrawn in place (the latest state, no scroll of old ones); otherwise a
 * line per status, attempt and progress change (`-o json`: one JSON event per line).
 * Resolves with the final run; exits 1 through a CliError unless it succeeded. A dropped stream
 * is reopened: the api starts each stream with the run's current status, so nothing is missed.
 */
export async function followRun(ctx: CliContext, id: string, options: FollowOptions = {}): Promise<Run> {
  const abort = new AbortController();
  const timer =
    options.timeoutMs !== undefined
      ? setTimeout(() => abort.abort(new Error('timeout')), options.timeoutMs)
      : undefined;
  const human = ctx.human;
  const live = human && ctx.io.isTty;
  const c = ctx.colors;
  let last: Run | undefined;
  let lastLine = '';
  let lastProgress: string | undefined;
  const stamp = (at: number) => `${c.dim(clock(at))}  `;
  // On a terminal: the status row (stamped when it changed) and, while running, the progress row.
  const block = live ? new LiveBlock(ctx.io) : undefined;
  let statusRow = '';
  let progressRow: string | undefined;
  const redraw = () => block?.draw(progressRow === undefined ? [statusRow] : [statusRow, progressRow]);
  const line = (text: string) => ctx.io.out(`${stamp(ctx.io.now())}${text}\n`);
  const statusLine = (run: Run) => {
    const text =
      `${c.status(run.status)}  attempt ${run.attempt}/${run.maxAttempts}` +
      (run.worker ? `  on ${run.worker}` : '') +
      // A settled run's error, or the last attempt's while it waits for a retry.
      (run.error && run.status !== 'running' ? `  ${c.red(run.error.message.split('\n')[0]!)}` : '');
    if (!human || text === lastLine) return;
    lastLine = text;
    if (!block) return line(text);
    statusRow = `${stamp(ctx.io.now())}${text}`;
    // Progress belongs to a running attempt: a retry's wait or the end shows none.
    if (run.status !== 'running') {
      progressRow = undefined;
      lastProgress = undefined;
    }
    redraw();
  };
  const progress = (value: unknown) => {
    const text = `progress ${JSON.stringify(value)}`;
    if (!human || text === lastProgress) return;
    lastProgress = text;
    if (!block) return line(text);
    progressRow = `${stamp(ctx.io.now())}${text}`;
    redraw();
  };
  try {
    // The api decides when a run is settled: it sends `end` right after that status and closes
    // the stream. A stream that closes without `end` was dropped; a new one starts with the run
    // as it is now (and ends at once if it settled meanwhile), so nothing is missed.
    let ended = false;
    for (let reconnects = 0; !ended && !abort.signal.aborted; reconnects++) {
      if (reconnects > 20) throw new CliError(`the event stream of run ${id} keeps dropping`, ExitCode.failed);
      if (reconnects > 0) await new Promise((r) => setTimeout(r, 1000));
      for await (const event of ctx.events(`/api/v1/runs/${encodeURIComponent(id)}/events`, abort.signal)) {
        const data = JSON.parse(event.data) as Record<string, unknown>;
        ctx.stream(event.event, data);
        if (event.event === 'status') {
          last = data as unknown as Run;
          statusLine(last);
          // A stream opened mid-run starts with the run as it is: its progress so far included.
          if (last.status === 'running' && last.progress !== undefined) progress(last.progress);
        } else if (event.event === 'attempt' && last) {
          // A new attempt without a status change (a lost lease, picked up again while running).
          last = { ...last, attempt: data.attempt as number, status: data.status as Run['status'] };
          statusLine(last);
        } else if (event.event === 'progress') {
          progress(data.progress);
        } else if (event.event === 'end') {
          ended = true;
        } else if (event.event === 'removed') {
          throw new CliError(`run ${id} was removed (purged) while watching`, ExitCode.failed);
        }
      }
    }
  } finally {
    if (timer) clearTimeout(timer);
    if (block) {
      // What stays on screen: the last status, without a progress row once the run has settled.
      if (last && last.status !== 'running' && progressRow !== undefined) {
        progressRow = undefined;
        redraw();
      }
      block.end();
    }
  }
  if (abort.signal.aborted || !last) {
    throw new CliError(
      `run ${id} is still ${last?.status ?? 'unknown'} after ${humanDuration(options.timeoutMs ?? 0)} (--timeout); it keeps going`,
      ExitCode.failed,
    );
  }
  ctx.stream('final', last);
  if (human) {
    const took =
      last.startedAt && last.finishedAt
        ? ` in ${humanDuration(Date.parse(last.finishedAt) - Date.parse(last.startedAt))}`
        : '';
    ctx.io.out(`run ${last.id} ${c.status(last.status)}${took}\n`);
  }
  if (last.status !== 'succeeded') {
    throw new CliError(
      `run ${last.id} ended ${last.status}` + (last.error ? `: ${last.error.message.split('\n')[0]}` : ''),
      ExitCode.failed,
    );
  }
  return last;
}
