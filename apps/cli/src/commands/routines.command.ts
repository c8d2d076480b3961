import { Option, type Command } from 'commander';
import { ok, type components } from '@drover/api-client';
import { ROUTINE_COUNT_STATUSES, type RoutineCountStatus } from '@drover/core/words';
import { UsageError } from '../cli-error';
import { parseCount, parseDuration, parseInstant, parseJsonArg } from '../args';
import type { CliContext } from '../context';
import { readInput } from '../input';
import { collect } from '../paging';
import { renderFields, renderTable } from '../output/table';
import { followRun } from '../runs/follow-run';
import { runColumns } from '../runs/run-columns';
import { confirm } from './confirm';
import { registerRoutineOverrides } from './routine-overrides.command';
import { registerRoutineSkips } from './routine-skips.command';
import { registerRoutineSlots } from './routine-slots.command';
import { whatIfApply, type WhatIfOptions } from './what-if.command';
import { routineColumns, routineStatus } from './routine-columns';
import { routineFields } from './routine-fields';

type RoutineDefinition = components['schemas']['RoutineDefinition'];
const path = (name: string) => ({ params: { path: { name } } });

export function registerRoutines(program: Command, ctx: CliContext): void {
  const routines = program
    .command('routines')
    .alias('routine')
    .description('list, inspect, change and run routines (scheduled work)');

  routines
    .command('ls')
    .alias('list')
    .description('routines with their next fire and last outcome')
    .option('--queue <queue>', 'only this queue')
    .addOption(new Option('--status <status>', 'only this status').choices(ROUTINE_COUNT_STATUSES))
    .option('--label <key=value>', 'only routines with this label')
    .option('--all', 'archived routines too (left out unless --status archived)')
    .option('--limit <n>', 'at most this many', '1000')
    .addHelpText(
      'after',
      '\nExamples:\n  drover routines ls --status paused\n  drover routines ls --all --label team=billing -o json',
    )
    .action(
      async (o: { queue?: string; status?: RoutineCountStatus; label?: string; all?: boolean; limit: string }) => {
        const limit = parseCount(o.limit, '--limit');
        const include = o.all ? ('archived' as const) : undefined;
        const { items } = await collect(
          (page_token, page_size) =>
            ok(
              ctx.api.GET('/api/v1/routines', {
                params: { query: { queue: o.queue, status: o.status, include, label: o.label, page_size, page_token } },
              }),
            ),
          limit,
        );
        ctx.emit(items, () => (items.length ? renderTable(routineColumns(ctx), items, ctx.width) : 'no routines\n'));
      },
    );

  routines
    .command('get <name>')
    .description('one routine: definition, status, next fire, last run, drift')
    .addHelpText(
      'after',
      '\nExamples:\n  drover routines get nightly-report\n  drover routines get nightly-report -o yaml > nightly-report.yaml',
    )
    .action(async (name: string) => {
      const r = await ok(ctx.api.GET('/api/v1/routines/{name}', path(name)));
      ctx.emit(r, () => renderFields(routineFields(ctx, r)));
    });

  routines
    .command('apply')
    .description('apply a policy bundle (queues and routines, YAML or JSON) to the cluster: admin')
    .requiredOption('-f, --file <file>', 'the bundle; - for stdin')
    .option('--dry-run', 'show what would change, change nothing')
    .option('--what-if', 'show what would fire, skip and start, with reasons; apply nothing (viewer)')
    .option('--at <instant>', '--what-if: the instant to plan at (default now)')
    .option('--slots <n>', '--what-if: due fires and skips listed per routine (max 100)')
    .option('--next <n>', '--what-if: next fires listed per routine (max 50)')
    .addHelpText(
      'after',
      `
File routines missing from the bundle are removed; routines created through the API are left alone.
Examples:
  drover routines apply -f drover.yaml --dry-run
  drover routines apply -f drover.yaml --what-if --at 'tomorrow 09:00'
  drover routines apply -f drover.yaml`,
    )
    .action(async (o: { file: string; dryRun?: boolean; whatIf?: boolean } & WhatIfOptions) => {
      const input = readInput(o.file);
      if (o.whatIf) return whatIfApply(ctx, input, o);
      if (o.at || o.slots || o.next) throw new UsageError('--at, --slots and --next go with --what-if');
      const res = await ok(
        ctx.api.POST('/api/v1/apply', {
          params: { query: { dryRun: o.dryRun ? 'true' : 'false' } },
          body: input.text,
          bodySerializer: (b: unknown) => b as string,
          headers: { 'content-type': input.format === 'json' ? 'application/json' : 'application/yaml' },
        }),
      );
      ctx.emit(res, () => {
        const list = (xs: string[]) => (xs.length ? xs.join(', ') : '-');
        const head = res.dryRun ? ctx.colors.yellow('dry run: nothing was changed\n') : '';
        return (
          head +
          renderFields([
            ['routines created', list(res.created)],
            ['routines updated', list(res.updated)],
            ['routines removed', list(res.removed)],
            ['routines unchanged', String(res.unchanged.length)],
            ['queues created', list(res.queues.created)],
            ['queues updated', list(res.queues.updated)],
            ['queues removed', list(res.queues.removed)],
            ['queues unchanged', String(res.queues.unchanged.length)],
          ])
        );
      });
    });

  routines
    .command('put')
    .description('create or replace one routine from a YAML or JSON definition')
    .requiredOption('-f, --file <file>', 'the routine definition (with its name); - for stdin')
    .option('--if-version <version>', 'only if the routine is still at this version (else 412)')
    .addHelpText(
      'after',
      '\nExamples:\n  drover routines put -f nightly-report.yaml\n  drover routines get nightly-report -o yaml | drover routines put -f -',
    )
    .action(async (o: { file: string; ifVersion?: string }) => {
      const input = readInput(o.file);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when used: a start without it is tens of ms faster
      const raw = (require('yaml') as typeof import('yaml')).parse(input.text) as
        (RoutineDefinition & { definition?: RoutineDefinition }) | null;
      // `routines get -o yaml` prints the routine view; its definition is what PUT takes.
      const def = raw && typeof raw === 'object' && raw.definition ? raw.definition : raw;
      if (!def || typeof def !== 'object' || typeof def.name !== 'string') {
        throw new UsageError(`${input.name}: a routine definition needs a "name"`);
      }
      const r = await ok(
        ctx.api.PUT('/api/v1/routines/{name}', {
          params: { path: { name: def.name }, header: { 'If-Match': o.ifVersion ? `"${o.ifVersion}"` : undefined } },
          body: def,
        }),
      );
      ctx.emit(r, () => `routine ${r.name} saved (version ${r.version})\n`);
    });

  routines
    .command('delete <name>')
    .alias('rm')
    .description('delete a routine; its prepared runs never start')
    .option('-y, --yes', 'do not ask')
    .action(async (name: string, o: { yes?: boolean }) => {
      await confirm(ctx, `delete routine ${name}?`, o.yes);
      await ok(ctx.api.DELETE('/api/v1/routines/{name}', path(name)));
      ctx.emit({ deleted: name }, () => `routine ${name} deleted\n`);
    });

  routines
    .command('pause <name>')
    .description('stop firing a routine (runs already queued still run)')
    .option('--note <text>', 'why, for the next person')
    .option('--until <when>', 'resume by itself then: ISO instant or a duration from now (2h)')
    .addHelpText('after', '\nExamples:\n  drover routines pause nightly-report --note "db migration" --until 2h')
    .action(async (name: string, o: { note?: string; until?: string }) => {
      const until = o.until ? parseInstant(o.until, '--until', ctx.io.now()) : undefined;
      const r = await ok(
        ctx.api.POST('/api/v1/routines/{name}/pause', { ...path(name), body: { note: o.note, until } }),
      );
      ctx.emit(r, () => `routine ${r.name} ${routineStatus(ctx, r)}\n`);
    });

  routines
    .command('resume <name>')
    .description('fire a paused routine again')
    .action(async (name: string) => {
      const r = await ok(ctx.api.POST('/api/v1/routines/{name}/resume', path(name)));
      ctx.emit(r, () => `routine ${r.name} ${routineStatus(ctx, r)}, next fire ${ctx.ago(r.nextFireAt)}\n`);
    });

  routines
    .command('enable <name>')
    .description('re-enable a routine its launcher disabled after repeated launch failures (forgets them)')
    .action(async (name: string) => {
      const r = await ok(ctx.api.POST('/api/v1/routines/{name}/enable', path(name)));
      ctx.emit(r, () => `routine ${r.name} ${routineStatus(ctx, r)}, next fire ${ctx.ago(r.nextFireAt)}\n`);
    });

  routines
    .command('archive <name>')
    .description('stop a routine for good but keep its runs and history; hidden from ls unless --all')
    .action(async (name: string) => {
      const r = await ok(ctx.api.POST('/api/v1/routines/{name}/archive', path(name)));
      ctx.emit(r, () => `routine ${r.name} ${routineStatus(ctx, r)}\n`);
    });

  routines
    .command('unarchive <name>')
    .description('make an archived routine active again (slots it slept through are not caught up)')
    .action(async (name: string) => {
      const r = await ok(ctx.api.POST('/api/v1/routines/{name}/unarchive', path(name)));
      ctx.emit(r, () => `routine ${r.name} ${routineStatus(ctx, r)}, next fire ${ctx.ago(r.nextFireAt)}\n`);
    });

  routines
    .command('trigger <name>')
    .alias('run')
    .description('run a routine now (also when paused)')
    .option('--payload <json>', "this run's payload instead of the routine's")
    .option('--key <key>', 'idempotency key: the same key gives the same run, once')
    .option('-w, --wait', 'follow the run until it ends; exit 1 unless it succeeded')
    .option('--timeout <duration>', 'with --wait: give up waiting after this long (10m)')
    .addHelpText(
      'after',
      `
Examples:
  drover routines trigger report-on-demand --wait
  drover routines trigger nightly-report --key "rerun-2026-05-01" --payload '{"day":"2026-05-01"}'`,
    )
    .action(async (name: string, o: { payload?: string; key?: string; wait?: boolean; timeout?: string }) => {
      const timeoutMs = o.timeout ? parseDuration(o.timeout, '--timeout') : undefined;
      const body = o.payload !== undefined ? { payload: parseJsonArg(o.payload, '--payload') } : {};
      const { runId } = await ok(
        ctx.api.POST('/api/v1/routines/{name}/trigger', {
          params: { path: { name }, header: { 'Idempotency-Key': o.key } },
          body,
        }),
      );
      if (!o.wait) {
        ctx.emit({ runId }, () => `triggered ${name}: run ${runId}\n`);
        return;
      }
      if (ctx.human) ctx.io.out(`triggered ${name}: run ${runId}\n`);
      ctx.stream('created', { runId });
      await followRun(ctx, runId, timeoutMs !== undefined ? { timeoutMs } : {});
    });

  routines
    .command('backfill <name>')
    .description("one run per slot in (from, to], capped by the routine's maxCatchUp")
    .requiredOption('--from <when>', 'ISO instant or a duration ago (-6h)')
    .requiredOption('--to <when>', 'ISO instant or a duration (0s = now)')
    .addHelpText(
      'after',
      '\nExamples:\n  drover routines backfill hourly-sync --from 2026-05-01T00:00:00Z --to 2026-05-02T00:00:00Z\n  drover routines backfill hourly-sync --from -6h --to 0s',
    )
    .action(async (name: string, o: { from: string; to: string }) => {
      const now = ctx.io.now();
      const res = await ok(
        ctx.api.POST('/api/v1/routines/{name}/backfill', {
          ...path(name),
          body: { from: parseInstant(o.from, '--from', now), to: parseInstant(o.to, '--to', now) },
        }),
      );
      ctx.emit(res, () =>
        renderFields([
          ['runs created', String(res.created.length)],
          ['already there', String(res.existing.length)],
          ['left out (cap)', res.capped ? `${res.cappedExact ? '' : 'at least '}${res.capped}` : '0'],
          ['run ids', res.runIds.join(' ')],
        ]),
      );
    });

  routines
    .command('preview <name>')
    .description('the next fire times of a routine, with local time and DST markers')
    .option('--count <n>', 'how many', '10')
    .option('--from <when>', 'start after this instant (default now)')
    .action(async (name: string, o: { count: string; from?: string }) => {
      const from = o.from ? parseInstant(o.from, '--from', ctx.io.now()) : undefined;
      const p = await ok(
        ctx.api.GET('/api/v1/routines/{name}/preview', {
          params: { path: { name }, query: { count: parseCount(o.count, '--count', 1000), from } },
        }),
      );
      ctx.emit(p, () => {
        const head = `${p.routine} (${p.tz})${p.paused ? ctx.colors.yellow(' — paused: these fire only after resume') : ''}\n`;
        return (
          head +
          renderTable(
            [
              { header: 'at (utc)', value: (i) => i.at },
              { header: 'local', value: (i) => i.local },
              { header: 'in', value: (i) => ctx.ago(i.at) },
              { header: 'dst', value: (i) => i.dst ?? '' },
              // A jittered routine's run starts after its slot (jitterMs).
              ...(p.items.some((i) => i.start)
                ? [{ header: 'starts (utc)', value: (i: (typeof p.items)[number]) => i.start ?? i.at }]
                : []),
              { header: 'skipped', value: (i) => i.skipped ?? '' },
            ],
            p.items,
            ctx.width,
          )
        );
      });
    });

  routines
    .command('history <name>')
    .description("a routine's recent runs, newest first")
    .option('--status <status>', 'only runs with this status')
    .option('--limit <n>', 'at most this many', '20')
    .action(async (name: string, o: { status?: string; limit: string }) => {
      const page = await ok(
        ctx.api.GET('/api/v1/routines/{name}/runs', {
          params: {
            path: { name },
            query: { status: o.status as never, page_size: parseCount(o.limit, '--limit', 1000) },
          },
        }),
      );
      ctx.emit(page.items, () =>
        page.items.length ? renderTable(runColumns(ctx), page.items, ctx.width) : `no runs of ${name}\n`,
      );
    });

  routines
    .command('stats <name>')
    .description('counts by status, success ratio, duration and lateness percentiles')
    .option('--window <window>', '1h to 7d', '24h')
    .action(async (name: string, o: { window: string }) => {
      const s = await ok(
        ctx.api.GET('/api/v1/routines/{name}/stats', { params: { path: { name }, query: { window: o.window } } }),
      );
      const ms = (v: number | null) => (v === null ? '-' : `${Math.round(v)}ms`);
      ctx.emit(s, () =>
        renderFields([
          ['routine', s.routine],
          ['window', `${s.window} (${s.from} → ${s.to})`],
          ['runs', String(s.total)],
          ['succeeded', String(s.counts.succeeded)],
          ['parked', String(s.counts.parked)],
          ['canceled', String(s.counts.canceled)],
          ['skipped', String(s.counts.skipped)],
          ['success ratio', s.successRatio === null ? '-' : `${(s.successRatio * 100).toFixed(1)}%`],
          ['duration p50/p95/p99', `${ms(s.durationMs.p50)} / ${ms(s.durationMs.p95)} / ${ms(s.durationMs.p99)}`],
          ['lateness p50/p95/p99', `${ms(s.latenessMs.p50)} / ${ms(s.latenessMs.p95)} / ${ms(s.latenessMs.p99)}`],
          [
            'last run',
            s.lastRun ? `${s.lastRun.id} ${ctx.colors.status(s.lastRun.status)} ${ctx.ago(s.lastRun.at)}` : '',
          ],
        ]),
      );
    });

  registerRoutineOverrides(routines, ctx);
  registerRoutineSlots(routines, ctx);
  registerRoutineSkips(routines, ctx);
}
