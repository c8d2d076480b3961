import type { components } from '@drover/api-client';
import type { CliContext } from '../context';
import { humanDuration } from '../output/time';
import type { Column } from '../output/table';

export type Routine = components['schemas']['Routine'];
type Definition = components['schemas']['RoutineDefinition'];
type Trigger = NonNullable<Definition['trigger']> | NonNullable<Definition['triggers']>[number];
type Condition = NonNullable<Definition['condition']>;

export function describeTrigger(t: Trigger): string {
  switch (t.kind) {
    case 'cron':
      return `cron ${t.cron}${t.tz && t.tz !== 'UTC' ? ` ${t.tz}` : ''}`;
    case 'interval':
      return `every ${humanDuration(t.everyMs)}`;
    case 'once':
      return `once ${t.at}`;
    default:
      return 'manual';
  }
}

/** A routine's condition in one line, as the api's what-if names it (headers are never shown). */
export function describeCondition(c: Condition): string {
  if (typeof c === 'string') return `${c} (@Condition)`;
  return c.kind === 'http' ? `http GET ${c.url}` : `queue-depth ${c.queue} < ${c.below}`;
}

/**
 * Every trigger of a routine with what its slots are attributed to (`[label, text]`): one unlabelled
 * entry for a single `trigger`; for a `triggers` list each trigger's name, else its index.
 */
export function describeTriggers(d: Definition): [label: string | undefined, text: string][] {
  if (d.triggers) return d.triggers.map((t, i) => [t.name ?? String(i), describeTrigger(t)]);
  return d.trigger ? [[undefined, describeTrigger(d.trigger)]] : [];
}

/** One line for a table cell: the trigger, or the list's triggers joined by ` + `. */
export function describeSchedule(d: Definition): string {
  return describeTriggers(d)
    .map(([label, text]) => (label === undefined ? text : `${label}: ${text}`))
    .join(' + ');
}

export function routineStatus(ctx: CliContext, r: Routine): string {
  const c = ctx.colors;
  // An active routine its launcher disabled fires nothing: said as such (the API's `status=disabled`).
  if (r.status === 'active' && r.disabledReason) return c.status('disabled');
  if (r.status !== 'paused') return c.status(r.status);
  return c.status('paused') + (r.pause?.until ? ` (resumes ${ctx.ago(r.pause.until)})` : '');
}

/** The launcher's health in a few words: disabled, or failures in a row and the backoff's end; '' when healthy. */
export function launcherSummary(ctx: CliContext, r: Routine): string {
  const l = r.launcher;
  if (r.disabledReason) return ctx.colors.red(`disabled ${ctx.ago(l.disabledAt)}`);
  if (l.consecutiveFailures === 0) return '';
  const failed = `${l.consecutiveFailures} failed`;
  return ctx.colors.yellow(l.backoffUntil ? `${failed}, retry ${ctx.ago(l.backoffUntil)}` : failed);
}

export function routineColumns(ctx: CliContext): Column<Routine>[] {
  const c = ctx.colors;
  return [
    { header: 'name', value: (r) => r.name, shrink: true },
    { header: 'status', value: (r) => routineStatus(ctx, r) },
    { header: 'trigger', value: (r) => describeSchedule(r.definition), shrink: true },
    { header: 'queue', value: (r) => r.definition.queue ?? '', shrink: true },
    { header: 'next fire', value: (r) => (r.nextFireAt ? ctx.ago(r.nextFireAt) : '') },
    { header: 'launcher', value: (r) => launcherSummary(ctx, r), shrink: true },
    {
      header: 'last run',
      value: (r) => (r.lastRun ? `${c.status(r.lastRun.status)} ${ctx.ago(r.lastRun.at)}` : ''),
    },
    // A file routine edited at runtime drifts from its file until the next apply.
    { header: 'origin', value: (r) => (r.drifted ? c.yellow(`${r.origin} (drifted)`) : r.origin) },
  ];
}
