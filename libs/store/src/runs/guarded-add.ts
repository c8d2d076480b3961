import type { JobsOptions, Queue, RedisQueueBackend } from 'bullmq';
import type { RedisClient } from '@drover/redis';
import { CompactJob } from '../queues/compact-queue';

/** One of BullMQ's Lua commands as its package ships it (include-resolved, with its key count). */
interface BullScript {
  name: string;
  content: string;
  keys: number;
}

// BullMQ's own scripts, from the installed package: the same objects its connection defines as
// `<name>:<version>` commands. Nothing is copied, so the add below is always the pinned BullMQ's.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BULL_SCRIPTS = require('bullmq/dist/cjs/scripts') as Record<string, BullScript>;

/** What a guarded command answers when a guard key exists: a table, which BullMQ's add never returns. */
const GUARD_HIT_LUA = '{0}';

/**
 * BullMQ's add script with a guard run first: when any key after BullMQ's own exists, nothing is
 * added. BullMQ's script reads only KEYS[1..n] (n = its key count) and ARGV, so the guard keys
 * appended after them are invisible to it.
 */
export function guardedScript(bull: BullScript): string {
  if (/#KEYS|unpack\(KEYS/.test(bull.content)) {
    // It would see the guard keys: refuse rather than run BullMQ's add with keys it does not expect.
    throw new Error(`BullMQ's ${bull.name} reads a variable number of keys; it cannot be guarded`);
  }
  return (
    `if redis.call("EXISTS", unpack(KEYS, ${bull.keys + 1})) > 0 then return ${GUARD_HIT_LUA} end\n` + bull.content
  );
}

const byName = new Map<string, BullScript>();
for (const s of Object.values(BULL_SCRIPTS)) if (s && typeof s.content === 'string') byName.set(s.name, s);

/** The guarded command for BullMQ's versioned command name (`addStandardJob:6.7.0`), defined on `redis` once. */
function guardedCommand(redis: RedisClient, versioned: string): { command: string; keys: number } {
  const base = byName.get(versioned.slice(0, versioned.indexOf(':')));
  if (!base) throw new Error(`BullMQ command ${versioned} has no script in the installed package`);
  const command = `drover-guarded:${versioned}`;
  if (typeof (redis as unknown as Record<string, unknown>)[command] !== 'function') {
    // No fixed key count: the guard keys vary (one per defined queue), so the count goes first.
    redis.defineCommand(command, { lua: guardedScript(base) });
  }
  return { command, keys: base.keys };
}

type RunCommand = (numKeys: number, ...args: unknown[]) => Promise<unknown>;

/**
 * A job whose add is guarded. Building it is `Queue.add`'s own work, by BullMQ's own code: the
 * `Job`, its JSON, its option checks, the choice of script (standard, delayed, prioritized) and its
 * keys and arguments (`addJobToTransaction`). Only the command it runs is swapped for the guarded
 * one, sent on `redis` (the queue's connection).
 */
// A CompactJob, so a keyed run is stored in the same shape as one `Queue.add` makes on a Drover queue.
class GuardedJob extends CompactJob {
  static async addGuarded(
    queue: Queue,
    redis: RedisClient,
    job: { name: string; data: unknown; opts: JobsOptions & { jobId: string } },
    guardKeys: readonly string[],
  ): Promise<boolean> {
    const built = new GuardedJob(queue, job.name, job.data, job.opts, job.opts.jobId);
    const json = built.asJSON();
    built.validateOptions(json);
    let hit = false;
    const client = {
      runCommand: (versioned: string, args: unknown[]) => {
        const { command, keys } = guardedCommand(redis, versioned);
        const run = (redis as unknown as Record<string, RunCommand>)[command]!.bind(redis);
        return run(keys + guardKeys.length, ...args.slice(0, keys), ...guardKeys, ...args.slice(keys)).then((r) => {
          if (!Array.isArray(r)) return r;
          hit = true;
          return job.opts.jobId;
        });
      },
    };
    // The same parent options Job.create passes for a job without a parent.
    await (queue.backend as RedisQueueBackend).addJobToTransaction(
      client as unknown as Parameters<RedisQueueBackend['addJobToTransaction']>[0],
      json,
      job.opts.jobId,
      { parentKey: undefined, parentDependenciesKey: '' },
    );
    return !hit;
  }
}

/**
 * Adds a job exactly as `queue.add(name, data, opts)` would, in the same one script call, unless one
 * of `guardKeys` exists (then nothing is written). Answers whether the job was added. Every guard
 * key must be in the queue's hash slot on Redis Cluster (a script cannot span slots).
 */
export function addGuarded(
  queue: Queue,
  redis: RedisClient,
  job: { name: string; data: unknown; opts: JobsOptions & { jobId: string } },
  guardKeys: readonly string[],
): Promise<boolean> {
  return GuardedJob.addGuarded(queue, redis, job, guardKeys);
}
