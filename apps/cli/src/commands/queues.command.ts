import type { Command } from 'commander';
import { ok, type components } from '@drover/api-client';
import { DEFAULT_RETENTION } from '@drover/core/words';
import type { CliContext } from '../context';
import { humanDuration } from '../output/time';
import { renderFields, renderTable, type Column } from '../output/table';
import { queueColumns } from './status.command';
import { registerQueueStats } from './queue-stats.command';

type Queue = components['schemas']['Queue'];
type KeyLoad = NonNullable<Queue['keys']>[number];

/** A keyed queue's busiest keys, as `GET /queues/{name}` answers them (most runs first). */
const KEY_COLUMNS: Column<KeyLoad>[] = [
  { header: 'key', value: (k) => k.key, shrink: true },
  { header: 'running', value: (k) => String(k.running), right: true },
  { header: 'waiting', value: (k) => String(k.waiting), right: true },
];

/** Where a keyed queue's runs take their key from. */
function keySource(source: string): string {
  return source === 'option' ? 'the concurrencyKey option' : source;
}

export function registerQueues(program: Command, ctx: CliContext): void {
  const queues = program
    .command('queues')
    .alias('queue')
    .description('queues: counts, limits, run totals, pause and resume');

  queues
    .command('ls')
    .alias('list')
    .description('every queue with its counts per state and its workers')
    .action(async () => {
      const { items } = await ok(ctx.api.GET('/api/v1/queues'));
      ctx.emit(items, () => (items.length ? renderTable(queueColumns(ctx), items, ctx.width) : 'no queues\n'));
    });

  queues
    .command('get <name>')
    .description(
      'one queue: counts, policy (concurrency, per-key limit, rate limit, retries, retention), workers, busiest keys',
    )
    .action(async (name: string) => {
      const q = await ok(ctx.api.GET('/api/v1/queues/{name}', { params: { path: { name } } }));
      const p = q.policy;
      const key = p.concurrencyKey;
      // A keyed queue: its limit per key, then its busiest keys in a table below the fields.
      const perKey: [string, string][] = key
        ? [['per key', `${key.limit} at once (key: ${keySource(key.source)})`]]
        : [];
      const keys = key && q.keys?.length ? `\n${renderTable(KEY_COLUMNS, q.keys, ctx.width)}` : '';
      const busiest: [string, string][] = key
        ? [['keys', keys ? `the ${q.keys!.length} busiest, most runs first:` : 'none running or waiting']]
        : [];
      ctx.emit(
        q,
        () =>
          renderFields([
            ['queue', ctx.colors.bold(q.name)],
            ['state', q.paused ? ctx.colors.yellow('paused') : 'running'],
            [
              'counts',
              `waiting ${q.counts.waiting} · prioritized ${q.counts.prioritized} · active ${q.counts.active} · delayed ${q.counts.delayed} · parked ${q.counts.parked}`,
            ],
            [
              'concurrency',
              `${p.concurrency} per worker${p.globalConcurrency ? `, ${p.globalConcurrency} in the cluster` : ''}`,
            ],
            ...perKey,
            ['rate limit', p.rateLimit ? `${p.rateLimit.max} per ${humanDuration(p.rateLimit.durationMs)}` : ''],
            [
              'attempts',
              `${p.maxAttempts}, ${p.backoff.type} backoff from ${humanDuration(p.backoff.delayMs)} to ${humanDuration(p.backoff.maxDelayMs)}`,
            ],
            ['timeout', humanDuration(p.timeoutMs)],
            ['lease', humanDuration(p.leaseMs)],
            [
              'retention',
              `${p.retention.count} finished runs, ${humanDuration(p.retention.ageMs)}; ${p.retention.logLines ?? DEFAULT_RETENTION.logLines} log lines a run`,
            ],
            ['origin', q.origin],
            [
              'workers',
              q.workers.length
                ? q.workers.map((w) => `${w.instanceId} (${w.concurrency}${w.draining ? ', draining' : ''})`).join(', ')
                : ctx.colors.yellow('none'),
            ],
            ...busiest,
          ]) + keys,
      );
    });

  for (const action of ['pause', 'resume'] as const) {
    queues
      .command(`${action} <name>`)
      .description(action === 'pause' ? 'stop handing out its runs (running ones finish)' : 'hand out its runs again')
      .action(async (name: string) => {
        const q = await ok(ctx.api.POST(`/api/v1/queues/{name}/${action}`, { params: { path: { name } } }));
        ctx.emit(q, () => `queue ${q.name} ${q.paused ? 'paused' : 'resumed'}\n`);
      });
  }

  registerQueueStats(queues, ctx);
}
