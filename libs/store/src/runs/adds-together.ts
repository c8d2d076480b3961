import type { JobJson, JobsOptions, Queue, RedisQueueBackend } from 'bullmq';
import type { RedisClient } from '@drover/redis';
import { CompactJob } from '../queues/compact-queue';
import { togetherArgs, togetherScript, type BullScript, type TogetherBatch } from './together-script';

// BullMQ's own scripts, from the installed package: the same objects its connection defines as
// `<name>:<version>` commands. Nothing is copied, so every add is the pinned BullMQ's.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BULL_SCRIPTS = require('bullmq/dist/cjs/scripts') as Record<string, BullScript>;
const byName = new Map<string, BullScript>();
for (const s of Object.values(BULL_SCRIPTS)) if (s && typeof s.content === 'string') byName.set(s.name, s);

/**
 * Most jobs one script call adds. A burst is split so Redis runs one part while this process builds
 * the next (a whole burst in one call would leave each side idle while the other works), and no
 * call holds Redis for long: a plain add costs it about 25 µs.
 */
export const ADDS_PER_CALL = 32;
/** A batch is sent once its jobs' data reach this many characters, whatever their count. */
const CHARS_PER_CALL = 1 << 20;

/** A BullMQ job to add: what `Queue.add` takes, its id among its options. */
export interface JobToAdd {
  name: string;
  data: unknown;
  opts: JobsOptions & { jobId: string };
}

interface Waiter {
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

interface Batch extends TogetherBatch {
  versioned: string;
  chars: number;
  waiters: Waiter[];
}

/** A job built as `Queue.add` builds it: a CompactJob, so it is stored as every job of a Drover queue is. */
class BuiltJob extends CompactJob {
  /** Its JSON, once BullMQ's own option checks (which throw) have passed. */
  static jsonOf(queue: Queue, job: JobToAdd): JobJson {
    const built = new BuiltJob(queue, job.name, job.data, job.opts, job.opts.jobId);
    const json = built.asJSON();
    built.validateOptions(json);
    return json;
  }
}

/** The same parent options Job.create passes for a job without a parent (BullMQ only reads them). */
const NO_PARENT = Object.freeze({ parentKey: undefined, parentDependenciesKey: '' });
const NO_GUARD: readonly string[] = Object.freeze([]);

/** Whether the add wrote the job: BullMQ answers its id; a guard hit answers a table. */
function added(result: unknown): boolean {
  return !Array.isArray(result);
}

/**
 * Adds jobs as `Queue.add` does, each by BullMQ's own code (the `Job`, its JSON, its option checks,
 * the choice of add script and its keys and arguments), but the adds one connection makes in one
 * turn of the event loop go to Redis together: one script call per queue and add script, which
 * runs BullMQ's add script for each job in order (see togetherScript). Per job this saves a command
 * of its own on both sides, about half of what an add costs the producer and a third of what it
 * costs Redis. Every job keeps its own answer: BullMQ's checks of it (a negative code is an error)
 * run on that answer alone, and an add that fails in Redis fails alone (the script goes on with the
 * next job). A call that fails as a whole (the connection lost) fails every add in it. At its memory
 * limit Redis refuses each job's first write, so every add of the call is refused and none written;
 * one call may take Redis past the limit by what it adds, as one add may by one job.
 */
export class AddsTogether {
  private readonly open = new Map<string, Batch>();
  private readonly commands = new Map<string, (args: unknown[]) => Promise<unknown>>();
  private readonly plain = { runCommand: (versioned: string, args: unknown[]) => this.push(versioned, args, NO_GUARD) };

  constructor(private readonly redis: RedisClient) {}

  /**
   * Adds the job unless one of `guard` exists (then nothing is written), and answers whether it was
   * added. On Redis Cluster every guard key must be in the queue's hash slot (a script cannot span slots).
   */
  add(queue: Queue, job: JobToAdd, guard: readonly string[] = NO_GUARD): Promise<boolean> {
    try {
      // Job's option checks throw; callers see a rejection, as from Queue.add.
      const json = BuiltJob.jsonOf(queue, job);
      const client = guard.length
        ? { runCommand: (versioned: string, args: unknown[]) => this.push(versioned, args, guard) }
        : this.plain;
      return (queue.backend as RedisQueueBackend)
        .addJobToTransaction(
          client as unknown as Parameters<RedisQueueBackend['addJobToTransaction']>[0],
          json,
          job.opts.jobId,
          NO_PARENT,
        )
        .then(added);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Joins the job to its queue's and script's open batch (opening one, sent at the end of this turn). */
  private push(versioned: string, args: unknown[], guard: readonly string[]): Promise<unknown> {
    const keyCount = this.scriptOf(versioned).keys;
    // One batch per queue and script, guarded jobs among the others: the queue's jobs stay in call order.
    const id = `${versioned}\n${String(args[0])}`;
    let batch = this.open.get(id);
    if (batch && !sameKeys(batch, args)) {
      this.open.delete(id);
      this.send(batch);
      batch = undefined;
    }
    if (!batch) {
      batch = {
        versioned,
        keys: args.slice(0, keyCount),
        argc: args.length - keyCount,
        guards: [],
        argv: [],
        chars: 0,
        waiters: [],
      };
      this.open.set(id, batch);
      process.nextTick(() => this.sendIfOpen(id, batch!));
    }
    batch.argv.push(guard.length);
    for (let i = keyCount; i < args.length; i++) {
      const a = args[i];
      batch.argv.push(a);
      batch.chars += typeof a === 'string' ? a.length : ((a as { length?: number }).length ?? 0);
    }
    for (const g of guard) batch.guards.push(g);
    const answer = new Promise<unknown>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    if (batch.waiters.length >= ADDS_PER_CALL || batch.chars >= CHARS_PER_CALL) {
      this.open.delete(id);
      this.send(batch);
    }
    return answer;
  }

  /** Sends the batch at the end of the turn that opened it, unless it was sent full before. */
  private sendIfOpen(id: string, batch: Batch): void {
    if (this.open.get(id) !== batch) return;
    this.open.delete(id);
    this.send(batch);
  }

  private send(batch: Batch): void {
    const { waiters } = batch;
    const fail = (err: unknown) => {
      for (const w of waiters) w.reject(err);
    };
    let call: Promise<unknown>;
    try {
      // Written at once, not held to the end of the turn: Redis runs this batch while the next is built.
      call = this.commandFor(batch.versioned)(togetherArgs(batch));
    } catch (err) {
      fail(err);
      return;
    }
    call.then((answers) => {
      if (!Array.isArray(answers) || answers.length !== waiters.length) {
        fail(new Error(`adds sent together: ${waiters.length} jobs, an answer of another shape`));
        return;
      }
      for (let i = 0; i < waiters.length; i++) {
        const a: unknown = answers[i];
        // A job whose add failed answers its own error; the others of the call were added.
        if (a instanceof Error) waiters[i]!.reject(a);
        else waiters[i]!.resolve(a === false ? null : a);
      }
    }, fail);
  }

  private scriptOf(versioned: string): BullScript {
    const base = byName.get(versioned.slice(0, versioned.indexOf(':')));
    if (!base) throw new Error(`BullMQ command ${versioned} has no script in the installed package`);
    return base;
  }

  /** The connection's command for BullMQ's versioned add script: defined the first time, then from memory. */
  private commandFor(versioned: string): (args: unknown[]) => Promise<unknown> {
    const known = this.commands.get(versioned);
    if (known) return known;
    const name = `drover-together:${versioned}`;
    const defined = this.redis as unknown as Record<string, (args: unknown[]) => Promise<unknown>>;
    // No fixed key count: the guard keys vary, so the count goes first.
    if (typeof defined[name] !== 'function')
      this.redis.defineCommand(name, { lua: togetherScript(this.scriptOf(versioned)) });
    const command = defined[name]!.bind(this.redis);
    this.commands.set(versioned, command);
    return command;
  }
}

/** Whether a job's BullMQ keys and argument count are the batch's (they are, for one queue's one script). */
function sameKeys(batch: Batch, args: unknown[]): boolean {
  if (args.length - batch.keys.length !== batch.argc) return false;
  for (let i = 0; i < batch.keys.length; i++) if (batch.keys[i] !== args[i]) return false;
  return true;
}
