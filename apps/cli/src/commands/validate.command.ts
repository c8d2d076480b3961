import type { Command } from 'commander';
import type { BundleIssue } from '@drover/core';
import { CliError, UsageError } from '../cli-error';
import type { CliContext } from '../context';

type Config = typeof import('@drover/config/config-file');

/** What `validate` says about one file; the JSON output is exactly this. */
export type FileReport =
  | { file: string; valid: true; queues: string[]; routines: string[] }
  | { file: string; valid: false; errors: BundleIssue[] };

const STDIN = '-';
/** How reports and problem lines name stdin. */
const STDIN_LABEL = '<stdin>';

const READ_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
};

async function readText(file: string, ctx: CliContext, config: Config): Promise<string> {
  if (file === STDIN) {
    if (!ctx.io.readStdin) throw new UsageError('this environment cannot read stdin');
    return ctx.io.readStdin();
  }
  return config.readBundleFile(file);
}

async function checkFile(path: string, ctx: CliContext, config: Config): Promise<FileReport> {
  const file = path === STDIN ? STDIN_LABEL : path;
  let text: string;
  try {
    text = await readText(path, ctx, config);
  } catch (err) {
    if (err instanceof CliError) throw err;
    const e = err as NodeJS.ErrnoException;
    const reason = (e.code && READ_REASONS[e.code]) ?? e.message;
    return { file, valid: false, errors: [{ path: '', message: `cannot read: ${reason}` }] };
  }
  // stdin is YAML: a YAML parser reads JSON too.
  const result = config.checkBundleText(text, path === STDIN ? 'yaml' : config.bundleFormatOf(path));
  if (!result.ok) return { file, valid: false, errors: result.issues };
  const { queues, routines } = result.bundle;
  return { file, valid: true, queues: queues.map((q) => q.name), routines: routines.map((r) => r.name) };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `drover.yaml: routines[a].trigger: unknown field …` — the file and field, as the apps name them. */
export function problemLines(report: FileReport): string[] {
  if (report.valid) return [];
  return report.errors.map((e) => `${report.file}: ${e.path ? `${e.path}: ` : ''}${e.message}`);
}

/** The stdout line for a valid file (an invalid one's problems are on stderr). */
function summary(report: FileReport, ctx: CliContext): string {
  const c = ctx.colors;
  if (!report.valid) return '';
  return (
    `${report.file}: ${c.green('valid')} — ` +
    `${plural(report.queues.length, 'queue')}, ${plural(report.routines.length, 'routine')}`
  );
}

export function registerValidate(program: Command, ctx: CliContext): void {
  program
    .command('validate')
    .description('check policy files (YAML or JSON) offline, with the validation the apps run on DROVER_CONFIG')
    .argument('<file...>', 'policy bundle files; - reads stdin')
    .addHelpText(
      'after',
      `
Every problem is printed on stderr as <file>: <field>: <what is wrong>; the exit code is 1 when
any file is invalid or unreadable. With -o json: {file, valid, queues, routines} or
{file, valid: false, errors: [{path, message}]} (an array of them for several files).

Examples:
  drover validate drover.yaml
  drover validate policies/*.yaml
  kubectl get configmap drover -o jsonpath='{.data.drover\\.yaml}' | drover validate -
  drover -o json validate drover.yaml | jq '.routines'`,
    )
    .action(async (files: string[]) => {
      // Lazily, and the policy file's loader alone: zod, yaml and core's model are what only this
      // command needs, and @drover/config's index also holds a Nest module (@nestjs/common, ~80 ms).
      const config = await import('@drover/config/config-file');
      const reports: FileReport[] = [];
      for (const file of files) reports.push(await checkFile(file, ctx, config));
      for (const report of reports) for (const line of problemLines(report)) ctx.io.err(line + '\n');
      const data = reports.length === 1 ? reports[0] : reports;
      ctx.emit(data, () =>
        reports
          .filter((r) => r.valid)
          .map((r) => summary(r, ctx) + '\n')
          .join(''),
      );
      const invalid = reports.filter((r) => !r.valid);
      if (invalid.length === 1 && reports.length === 1) {
        throw new CliError(`${invalid[0]!.file} is invalid (${plural(problemLines(invalid[0]!).length, 'problem')})`);
      }
      if (invalid.length > 0) throw new CliError(`${invalid.length} of ${reports.length} files are invalid`);
    });
}
