import { Option, type Command } from 'commander';
import { ok } from '@drover/api-client';
import type { PriorityName } from '@drover/core/words';
import { parseCount, parseDuration, parseInstant, parseJsonArg } from '../args';
import type { CliContext } from '../context';
import { followRun } from '../runs/follow-run';

export function registerEnqueue(program: Command, ctx: CliContext): void {
  program
    .command('enqueue <jobType>')
    .description('an ad-hoc run of a job type, outside any routine')
    .option('--payload <json>', 'the payload', '{}')
    .option('--queue <queue>', "the queue (default: the job type's)")
    .option('--at <when>', 'run at this instant (ISO) or after this long (10m)')
    .addOption(new Option('--priority <priority>', 'low, medium, high or -1000…1000'))
    .option('--max-attempts <n>', 'attempts before it is parked')
    .option('--key <key>', 'idempotency key: the same key gives the same run, once')
    .option('--concurrency-key <key>', "the run's key on a queue limiting runs per key (concurrencyKey source: option)")
    .option('-w, --wait', 'follow the run until it ends; exit 1 unless it succeeded')
    .option('--timeout <duration>', 'with --wait: give up waiting after this long')
    .addHelpText(
      'after',
      `
Examples:
  drover enqueue http.request --payload '{"url":"http://127.0.0.1:8080/hook"}' --wait
  drover enqueue reports.generate --payload '{"day":"2026-05-01"}' --at 10m --key report-2026-05-01
  drover enqueue exports.build --queue exports --concurrency-key acme`,
    )
    .action(
      async (
        jobType: string,
        o: {
          payload: string;
          queue?: string;
          at?: string;
          priority?: string;
          maxAttempts?: string;
          key?: string;
          concurrencyKey?: string;
          wait?: boolean;
          timeout?: string;
        },
      ) => {
        const priority =
          o.priority === undefined
            ? undefined
            : /^-?\d+$/.test(o.priority)
              ? Number(o.priority)
              : (o.priority as PriorityName);
        const timeoutMs = o.timeout ? parseDuration(o.timeout, '--timeout') : undefined;
        const { runId } = await ok(
          ctx.api.POST('/api/v1/jobs', {
            params: { header: { 'Idempotency-Key': o.key } },
            body: {
              jobType,
              payload: parseJsonArg(o.payload, '--payload'),
              queue: o.queue,
              runAt: o.at ? parseInstant(o.at, '--at', ctx.io.now()) : undefined,
              priority,
              maxAttempts: o.maxAttempts ? parseCount(o.maxAttempts, '--max-attempts', 1000) : undefined,
              concurrencyKey: o.concurrencyKey,
            },
          }),
        );
        if (!o.wait) {
          ctx.emit({ runId }, () => `enqueued ${jobType}: run ${runId}\n`);
          return;
        }
        if (ctx.human) ctx.io.out(`enqueued ${jobType}: run ${runId}\n`);
        ctx.stream('created', { runId });
        await followRun(ctx, runId, timeoutMs !== undefined ? { timeoutMs } : {});
      },
    );
}
