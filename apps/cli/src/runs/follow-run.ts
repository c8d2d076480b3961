import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { ExitCode } from '../exit-codes';
import { humanDuration } from '../output/time';
import type { Run } from './run-columns';

export interface FollowOptions {
  /** Give up after this long (ms): exit 1 saying the run is still going. */
  timeoutMs?: number;
}

/** `text` cut to `width` characters with an ellipsis. */
function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/**
 * Follows one run over `GET /runs/{id}/events` until it settles, printing a line per status
 * and attempt, and progress in place on a terminal (`-o json`: one JSON event per line).
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
  let progressShown = false;
  const stamp = () => `${c.dim(clock(ctx.io.now()))}  `;
  const line = (text: string) => {
    if (progressShown) ctx.io.out('\r\u001b[K');
    progressShown = false;
    ctx.io.out(`${stamp()}${text}\n`);
  };
  const statusLine = (run: Run) => {
    const text =
      `${c.status(run.status)}  attempt ${run.attempt}/${run.maxAttempts}` +
      (run.worker ? `  on ${run.worker}` : '') +
      // A settled run's error, or the last attempt's while it waits for a retry.
      (run.error && run.status !== 'running' ? `  ${c.red(run.error.message.split('\n')[0]!)}` : '');
    if (human && text !== lastLine) line(text);
    lastLine = text;
  };
  const progress = (value: unknown) => {
    const text = `progress ${JSON.stringify(value)}`;
    if (!human || text === lastProgress) return;
    lastProgress = text;
    if (!live) return line(text);
    // Redrawn in place: it must fit on one row, or `\r` + erase-line would only clear the last
    // wrapped row and leave the rest behind (10 = the clock and its gap; 1 spare for the cursor).
    ctx.io.out(`\r\u001b[K${stamp()}${fit(text, (ctx.io.columns ?? 80) - 11)}`);
    progressShown = true;
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
  }
  if (progressShown) ctx.io.out('\n');
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
