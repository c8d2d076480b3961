import type { CliContext } from '../context';
import { describeCondition, describeTriggers, routineStatus, type Routine } from './routine-columns';

/** The label/value rows of `drover routines get`: one routine's definition, state and launcher health. */
export function routineFields(ctx: CliContext, r: Routine): [string, string][] {
  const d = r.definition;
  return [
    ['name', ctx.colors.bold(r.name)],
    ['status', routineStatus(ctx, r)],
    ...launcherFields(ctx, r),
    [
      'paused',
      r.pause
        ? `${ctx.ago(r.pause.at)}${r.pause.by ? ` by ${r.pause.by}` : ''}${r.pause.note ? `: ${r.pause.note}` : ''}`
        : '',
    ],
    ['archived', r.archive ? `${ctx.ago(r.archive.at)}${r.archive.by ? ` by ${r.archive.by}` : ''}` : ''],
    // A `triggers` list: one row per trigger, labelled as its slots are attributed.
    ...describeTriggers(d).map(([label, text]): [string, string] => [
      label === undefined ? 'trigger' : `trigger ${label}`,
      text,
    ]),
    ['condition', d.condition === undefined ? '' : describeCondition(d.condition)],
    ['job type', d.jobType],
    ['queue', d.queue ?? ''],
    ['next fire', r.nextFireAt ? `${r.nextFireAt} (${ctx.ago(r.nextFireAt)})` : ''],
    ['bounds', d.startAt || d.endAt ? `${d.startAt ?? '…'} – ${d.endAt ?? '…'}` : ''],
    ['excludes', (d.exclude ?? []).map((c) => (typeof c === 'string' ? c : (c.name ?? 'inline'))).join(', ')],
    ['last run', r.lastRun ? `${r.lastRun.id} ${ctx.colors.status(r.lastRun.status)} ${ctx.ago(r.lastRun.at)}` : ''],
    ['overlap', d.concurrencyPolicy ?? ''],
    ['catch-up', `${d.catchUpPolicy ?? ''} (max ${d.maxCatchUp ?? '-'})`],
    ['origin', r.origin + (r.drift ? ` — drifted ${ctx.ago(r.drift.at)}${r.drift.by ? ` by ${r.drift.by}` : ''}` : '')],
    ['version', String(r.version)],
    [
      'labels',
      Object.entries(d.labels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(', '),
    ],
    ['payload', JSON.stringify(d.payload ?? {})],
    ['updated', `${ctx.ago(r.updatedAt)}${r.updatedBy ? ` by ${r.updatedBy}` : ''}`],
  ];
}

/** Launcher health: failures in a row, the backoff's end, the newest error, the disable and how to lift it. */
function launcherFields(ctx: CliContext, r: Routine): [string, string][] {
  const l = r.launcher;
  return [
    ['launch failures', l.consecutiveFailures ? String(l.consecutiveFailures) : ''],
    ['backoff until', l.backoffUntil ? `${l.backoffUntil} (${ctx.ago(l.backoffUntil)})` : ''],
    ['last launch error', l.lastError ?? ''],
    [
      'disabled',
      r.disabledReason
        ? `${l.disabledAt ? `${ctx.ago(l.disabledAt)}: ` : ''}${r.disabledReason} (re-enable: drover routines enable ${r.name})`
        : '',
    ],
  ];
}
