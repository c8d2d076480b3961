import { DroverApiError, ok, type components } from '@drover/api-client';
import { formatInstant } from '@drover/core/human-time';
import { parseCount, parseInstant } from '../args';
import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import type { InputFile } from '../input';
import { renderTable } from '../output/table';

type WhatIf = components['schemas']['PlanWhatIf'];
type Entry = WhatIf['routines'][number];
type Wait = Entry['waiting'][number];

export interface WhatIfOptions {
  at?: string;
  slots?: string;
  next?: string;
}

/** `paused by alice "db migration"`, `disabled: launch failed 5 times`: a detail that starts with the reason says it alone. */
const why = (w: Wait) => (w.detail?.startsWith(w.reason) ? w.detail : [w.reason, w.detail].filter(Boolean).join(': '));

/** The what-if for people: one line per routine, then the fires and skips it lists, then the queues. */
export function renderWhatIf(ctx: CliContext, w: WhatIf): string {
  const c = ctx.colors;
  const out: string[] = [c.yellow(`what-if at ${formatInstant(w.at)}: nothing was applied\n`)];
  const section = (title: string, body: string) => out.push(`${c.bold(title)}\n${body}`);
  const count = (n: number, more: number) => (more ? `${n}+${more}` : String(n));
  section(
    'routines',
    renderTable(
      [
        { header: 'routine', value: (r: Entry) => r.routine, shrink: true },
        { header: 'change', value: (r) => r.change },
        { header: 'status', value: (r) => r.status ?? '' },
        { header: 'fires', value: (r) => count(r.fires.length, r.more.fires) },
        { header: 'skips', value: (r) => count(r.skips.length, r.more.skips) },
        { header: 'next', value: (r) => (r.next[0] ? formatInstant(r.next[0].at) : '') },
        { header: 'why not', value: (r) => r.waiting.map(why).join('; '), shrink: true },
      ],
      w.routines,
      ctx.width,
    ),
  );
  const fires = w.routines.flatMap((r) => r.fires.map((f) => ({ routine: r.routine, ...f })));
  if (fires.length)
    section(
      'would fire',
      renderTable(
        [
          { header: 'routine', value: (f: (typeof fires)[number]) => f.routine, shrink: true },
          { header: 'slot', value: (f) => formatInstant(f.slot) },
          { header: 'source', value: (f) => f.source },
          ...(fires.some((f) => f.start)
            ? [{ header: 'planned start', value: (f: (typeof fires)[number]) => formatInstant(f.start ?? f.slot) }]
            : []),
          { header: 'starts', value: (f) => (f.starts ? 'now' : f.waits ? c.yellow(why(f.waits)) : 'waits') },
        ],
        fires,
        ctx.width,
      ),
    );
  const skips = w.routines.flatMap((r) => r.skips.map((s) => ({ routine: r.routine, ...s })));
  if (skips.length)
    section(
      'would skip',
      renderTable(
        [
          { header: 'routine', value: (s: (typeof skips)[number]) => s.routine, shrink: true },
          { header: 'slot', value: (s) => formatInstant(s.slot) },
          { header: 'reason', value: (s) => s.reason },
        ],
        skips,
        ctx.width,
      ),
    );
  const gated = w.routines.filter((r) => r.condition !== undefined);
  if (gated.length)
    section(
      'conditions (evaluated when each fire fires; a what-if calls none)',
      renderTable(
        [
          { header: 'routine', value: (r: Entry) => r.routine, shrink: true },
          { header: 'condition', value: (r) => r.condition ?? '', shrink: true },
        ],
        gated,
        ctx.width,
      ),
    );
  const q = w.queues;
  const list = (xs: string[]) => (xs.length ? xs.join(', ') : '-');
  out.push(
    `${c.bold('queues')}  created ${list(q.created)}; updated ${list(q.updated)}; removed ${list(q.removed)}; ` +
      `unchanged ${q.unchanged.length}\n`,
  );
  return out.join('\n');
}

/**
 * `drover routines apply -f <file> --what-if`: asks POST /plan/what-if and prints the plan; applies nothing.
 * An invalid bundle prints every problem as `drover validate` does (`<file>: <field>: <what is wrong>`) and exits 1.
 */
export async function whatIfApply(ctx: CliContext, input: InputFile, o: WhatIfOptions): Promise<void> {
  const query = {
    ...(o.at && { at: parseInstant(o.at, '--at', ctx.io.now()) }),
    ...(o.slots && { slots: parseCount(o.slots, '--slots', 100) }),
    ...(o.next && { next: parseCount(o.next, '--next', 50) }),
  };
  let res: WhatIf;
  try {
    res = await ok(
      ctx.api.POST('/api/v1/plan/what-if', {
        params: { query },
        body: input.text,
        bodySerializer: (b: unknown) => b as string,
        headers: { 'content-type': input.format === 'json' ? 'application/json' : 'application/yaml' },
      }),
    );
  } catch (err) {
    if (!(err instanceof DroverApiError) || err.status !== 400 || err.fieldErrors.length === 0) throw err;
    const bodyErrors = err.fieldErrors.filter((f) => f.path === 'body' || f.path.startsWith('body.'));
    if (bodyErrors.length === 0) throw err;
    for (const f of bodyErrors) {
      const field = f.path.replace(/^body\.?/, '');
      ctx.io.err(`${input.name}: ${field ? `${field}: ` : ''}${f.message}\n`);
    }
    const n = bodyErrors.length;
    throw new CliError(`${input.name} is invalid (${n} problem${n === 1 ? '' : 's'}); nothing was applied`);
  }
  ctx.emit(res, () => renderWhatIf(ctx, res));
}
