import { Command, Option } from 'commander';
import { droverVersion } from '../../../libs/platform/src/version';
import { registerAudit } from './commands/audit.command';
import { registerEnqueue } from './commands/enqueue.command';
import { registerOperations } from './commands/operations.command';
import { registerParked } from './commands/parked.command';
import { registerPlan } from './commands/plan.command';
import { registerQueues } from './commands/queues.command';
import { registerRoutines } from './commands/routines.command';
import { registerRuns } from './commands/runs.command';
import { registerBatches } from './commands/batches.command';
import { registerFlows } from './commands/flows.command';
import { registerStatus } from './commands/status.command';
import { registerWorkers } from './commands/workers.command';
import { registerValidate } from './commands/validate.command';
import { registerPreview } from './commands/preview.command';
import { registerCompletion } from './commands/completion.command';
import { CliContext, OUTPUT_FORMATS, type GlobalOptions } from './context';
import type { CliIo } from './io';

/** Every command, in the order `drover --help` lists them. */
const COMMANDS = [
  registerStatus,
  registerRoutines,
  registerRuns,
  registerBatches,
  registerFlows,
  registerEnqueue,
  registerQueues,
  registerParked,
  registerWorkers,
  registerPlan,
  registerOperations,
  registerAudit,
  registerValidate,
  registerPreview,
  registerCompletion,
];

/**
 * The `drover` command tree. Global options work before or after the command
 * (`drover -o json status`, `drover status -o json`).
 */
export function buildProgram(io: CliIo): { program: Command; ctx: CliContext } {
  const program = new Command('drover');
  const ctx = new CliContext(io, () => program.opts<GlobalOptions>());
  program
    .description('Operate a Drover cluster through its management API, or check policy files offline.')
    // The repository's package.json, found upwards: the CLI has no version of its own (the
    // platform lib's index would pull NestJS into every CLI start).
    .version(droverVersion(__dirname), '-V, --version')
    .addOption(
      new Option('--api-url <url>', 'the api app (default: DROVER_API_URL, the profile, http://127.0.0.1:3000)'),
    )
    .addOption(new Option('--token <token>', 'a bearer token (default: DROVER_TOKEN or the profile)'))
    .addOption(
      new Option('--profile <name>', 'a profile of the CLI config file (default: DROVER_PROFILE, its current)'),
    )
    .addOption(
      new Option('-o, --output <format>', 'table for people, json or yaml for scripts')
        .choices(OUTPUT_FORMATS)
        .default('table'),
    )
    .option('--no-color', 'no colours (also NO_COLOR=1)')
    .showSuggestionAfterError(true)
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      outputError: (s, write) => write(s),
    })
    .exitOverride()
    .addHelpText(
      'after',
      `
Examples:
  drover status                                     leader, schedulers, workers, queues
  drover routines trigger report-on-demand --wait   run a routine now and wait for its outcome
  drover runs watch <run-id>                        follow a run live until it ends
  drover parked replay --queue default --all        replay every parked run of a queue
  drover validate drover.yaml                       check a policy file offline
  drover preview '0 9 * * 1-5' --tz Europe/Paris    next fire times, no cluster needed
  drover -o json runs ls --status parked | jq …     JSON for scripts

Exit codes: 0 ok, 1 failed, 2 usage, 3 API unreachable, 4 token refused, 5 not found.
Docs: docs/cli.md`,
    );
  for (const register of COMMANDS) register(program, ctx);
  // Subcommands inherit the output plumbing and the exit override, and accept the global options.
  const inherit = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.copyInheritedSettings(cmd);
      inherit(sub);
    }
  };
  inherit(program);
  return { program, ctx };
}
