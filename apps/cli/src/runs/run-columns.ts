import type { components } from '@drover/api-client';
import { formatInstant } from '@drover/core/human-time';
import type { CliContext } from '../context';
import { parentLine } from '../flows/flow-tree';
import { humanDuration } from '../output/time';
import type { Column } from '../output/table';

export type Run = components['schemas']['Run'];

/** How long a run took (or has been running), for people. */
export function runDuration(run: Run, now: number): string {
  if (!run.startedAt) return '-';
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  return humanDuration(end - Date.parse(run.startedAt));
}

/** A buffer-one run's wait for the run that was active when it was made, for people (shown only for such runs). */
function bufferedWait(run: Pick<Run, 'status' | 'bufferedBehind'>): string {
  return run.status === 'scheduled' ? `waits for ${run.bufferedBehind} to end` : `waited for ${run.bufferedBehind}`;
}

/** Where a gated run's approval stands, for people: `approved by alice 2026-… (3m ago) — why`. */
function approvalLine(ctx: CliContext, a: NonNullable<Run['approval']>): string {
  const when = a.at ? ` ${formatInstant(a.at)} (${ctx.ago(a.at)})` : '';
  const waiting = a.expiresAt ? `waiting; expires ${formatInstant(a.expiresAt)}` : 'waiting';
  const decided = a.state === 'expired' ? `expired${when}` : `${a.state}${a.by ? ` by ${a.by}` : ''}${when}`;
  return (a.state === 'waiting' ? waiting : decided) + (a.reason ? ` — ${a.reason}` : '');
}

export function runColumns(ctx: CliContext): Column<Run>[] {
  const c = ctx.colors;
  return [
    { header: 'id', value: (r) => r.id },
    {
      header: 'status',
      value: (r) => c.status(r.status) + (r.bufferedBehind && r.status === 'scheduled' ? ' (buffered)' : ''),
    },
    { header: 'routine', value: (r) => r.routine ?? '', shrink: true },
    { header: 'job type', value: (r) => r.jobType, shrink: true },
    { header: 'queue', value: (r) => r.queue, shrink: true },
    { header: 'attempt', value: (r) => `${r.attempt}/${r.maxAttempts}`, right: true },
    { header: 'created', value: (r) => ctx.ago(r.createdAt) },
    { header: 'took', value: (r) => runDuration(r, ctx.io.now()), right: true },
    { header: 'error', value: (r) => r.error?.message.split('\n')[0] ?? '', shrink: true },
  ];
}

/** One run as `key  value` lines, then its attempts' errors. */
export function runFields(ctx: CliContext, run: Run): [string, string][] {
  const c = ctx.colors;
  const at = (iso?: string | null) => (iso ? `${formatInstant(iso)} (${ctx.ago(iso)})` : '');
  return [
    ['id', c.bold(run.id)],
    [
      'status',
      c.status(run.status) +
        (run.waitingForChildren ? ' (waiting for its children)' : '') +
        (run.reason ? ` — ${run.reason}` : ''),
    ],
    ['routine', run.routine ?? ''],
    ['job type', run.jobType],
    ['queue', run.queue],
    ['source', run.source + (run.replayOf ? ` (replay of ${run.replayOf})` : '')],
    ['attempt', `${run.attempt} of ${run.maxAttempts}`],
    ['scheduled for', at(run.scheduledFor)],
    ['created', at(run.createdAt) + (run.createdBy ? ` by ${run.createdBy}` : '')],
    ['started', at(run.startedAt)],
    ['finished', at(run.finishedAt)],
    ['took', runDuration(run, ctx.io.now())],
    ['next attempt', at(run.nextAttemptAt)],
    ['worker', run.worker ?? ''],
    ['progress', run.progress === undefined ? '' : JSON.stringify(run.progress)],
    ['checkpoint', checkpointText(run, at)],
    ['replayed as', run.replayedAs ?? ''],
    ...(run.bufferedBehind ? [['buffered', bufferedWait(run)] as [string, string]] : []),
    ...(run.approval ? [['approval', approvalLine(ctx, run.approval)] as [string, string]] : []),
    ...(run.concurrencyKey !== undefined
      ? [
          ['concurrency key', run.concurrencyKey + (run.waitingForKey ? ' (waiting for a place)' : '')] as [
            string,
            string,
          ],
        ]
      : []),
    ...(run.flow?.parent ? [['parent', parentLine(run)] as [string, string]] : []),
    ['payload', JSON.stringify(run.payload)],
    ['result', run.result === undefined ? '' : JSON.stringify(run.result)],
    ['error', run.error ? c.red(run.error.message.split('\n')[0]!) : ''],
  ];
}

/** Its last checkpoint for people: the state (cut; `-o json` has it whole), the attempt, size and time. */
function checkpointText(run: Run, at: (iso: string) => string): string {
  const k = run.checkpoint;
  if (!k) return '';
  const state = JSON.stringify(k.state);
  const shown = state.length > 80 ? `${state.slice(0, 79)}…` : state;
  return `${shown} — attempt ${k.attempt}, ${k.size} bytes, ${at(k.at)}`;
}

/** The attempts' errors for people: `#1 error  2026-…  message`, stacks indented under. */
export function renderAttempts(ctx: CliContext, run: Run, stacks: boolean): string {
  const errors = run.errors ?? [];
  if (errors.length === 0) return '';
  const lines = ['', ctx.colors.bold('attempts')];
  for (const e of errors) {
    lines.push(`  #${e.attempt}  ${e.kind.padEnd(15)} ${formatInstant(e.failedAt)}  ${e.message.split('\n')[0]}`);
    if (stacks && e.stack) lines.push(...e.stack.split('\n').map((l) => `      ${ctx.colors.dim(l)}`));
  }
  return lines.join('\n') + '\n';
}
