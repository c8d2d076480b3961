import type { JobsOptions, Queue, RedisQueueBackend } from 'bullmq';
import { writeTogether, type RedisClient } from '@drover/redis';
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

/** A guarded command as a connection runs it: its ioredis function (bound) and BullMQ's key count. */
interface GuardedCommand {
  run: (args: unknown[]) => Promise<unknown>;
  keys: number;
}

/** Per connection, per BullMQ versioned command name: looked up on every keyed enqueue, made once. */
const commands = new WeakMap<RedisClient, Map<string, GuardedCommand>>();

/**
 * The guarded command for BullMQ's versioned command name (`addStandardJob:6.7.0`) on `redis`:
 * defined there the first time, then answered from memory (the same object every call).
 */
export function guardedCommand(redis: RedisClient, versioned: string): GuardedCommand {
  let mine = commands.get(redis);
  const known = mine?.get(versioned);
  if (known) return known;
  const base = byName.get(versioned.slice(0, versioned.indexOf(':')));
  if (!base) throw new Error(`BullMQ command ${versioned} has no script in the installed package`);
  const name = `drover-guarded:${versioned}`;
  const defined = redis as unknown as Record<string, (args: unknown[]) => Promise<unknown>>;
  if (typeof defined[name] !== 'function') {
    // No fixed key count: the guard keys vary (one per defined queue), so the count goes first.
    redis.defineCommand(name, { lua: guardedScript(base) });
  }
  const command = { run: defined[name]!.bind(redis), keys: base.keys };
  if (!mine) commands.set(redis, (mine = new Map()));
  mine.set(versioned, command);
  return command;
}

/**
 * The arguments of a guarded command: BullMQ's `args` (its keys, then its arguments) with the key
 * count first and `guard` after BullMQ's own keys — one array, no intermediate copies (ioredis
 * flattens it into the command).
 */
export function guardedArgs(keys: number, args: readonly unknown[], guard: readonly string[]): unknown[] {
  const out: unknown[] = [keys + guard.length];
  for (let i = 0; i < keys; i++) out.push(args[i]);
  for (let i = 0; i < guard.length; i++) out.push(guard[i]);
  for (let i = keys; i < args.length; i++) out.push(args[i]);
  return out;
}

/**
 * What BullMQ's `addJobToTransaction` runs its add script on: the guarded command instead, on the
 * queue's connection. A guard hit answers a table (an array here), which BullMQ passes back as
 * the add's result (it only refuses a negative number); the caller tells the two apart.
 */
class GuardedClient {
  constructor(
    private readonly redis: RedisClient,
    private readonly guard: readonly string[],
  ) {}

  runCommand(versioned: string, args: unknown[]): Promise<unknown> {
    const { run, keys } = guardedCommand(this.redis, versioned);
    // Keyed enqueues come in bursts (each caller's next one starts when its last is answered):
    // one write for the burst instead of one system call each.
    writeTogether(this.redis);
    return run(guardedArgs(keys, args, this.guard));
  }
}

/**
 * A job whose add is guarded. Building it is `Queue.add`'s own work, by BullMQ's own code: the
 * `Job`, its JSON, its option checks, the choice of script (standard, delayed, prioritized) and its
 * keys and arguments (`addJobToTransaction`). Only the command it runs is swapped for the guarded
 * one, sent on `redis` (the queue's connection).
 */
// A CompactJob, so a keyed run is stored in the same shape as one `Queue.add` makes on a Drover queue.
class GuardedJob extends CompactJob {
  static addGuarded(
    queue: Queue,
    redis: RedisClient,
    job: { name: string; data: unknown; opts: JobsOptions & { jobId: string } },
    guardKeys: readonly string[],
  ): Promise<boolean> {
    const built = new GuardedJob(queue, job.name, job.data, job.opts, job.opts.jobId);
    const json = built.asJSON();
    built.validateOptions(json);
    const client = new GuardedClient(redis, guardKeys);
    return (queue.backend as RedisQueueBackend)
      .addJobToTransaction(
        client as unknown as Parameters<RedisQueueBackend['addJobToTransaction']>[0],
        json,
        job.opts.jobId,
        NO_PARENT,
      )
      .then(added);
  }
}

/** The same parent options Job.create passes for a job without a parent (BullMQ only reads them). */
const NO_PARENT = Object.freeze({ parentKey: undefined, parentDependenciesKey: '' });

/** Whether the add wrote the job: BullMQ answers its id; a guard hit answers a table. */
function added(result: unknown): boolean {
  return !Array.isArray(result);
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
  try {
    return GuardedJob.addGuarded(queue, redis, job, guardKeys);
  } catch (err) {
    // Job's option checks throw; callers see a rejection, as from Queue.add.
    return Promise.reject(err);
  }
}
