import { KEY_REGISTRY, type KeyName } from './key-registry';

/** One builder per registered key: a key added to the registry without one does not compile. */
type KeyBuilders = { [K in KeyName]: (...parts: never[]) => string };

type Part = string | number;

/** A registered pattern split once: fixed segments as they are, `<placeholder>`s as `null`. */
const SEGMENTS = Object.fromEntries(
  Object.entries(KEY_REGISTRY).map(([name, spec]) => [
    name,
    spec.pattern.split(':').map((s) => (/^<.+>$/.test(s) ? null : s)),
  ]),
) as Record<KeyName, (string | null)[]>;

/**
 * Key naming: every key and channel Drover uses is named in {@link KEY_REGISTRY} and built here,
 * by name (`keys.leader()`, `keys.routineState(name)`); nothing else spells a key. Drover's own keys
 * live under one hash tag (`{core}`) so our Lua scripts can touch several of them atomically on
 * Redis Cluster; every BullMQ queue gets its own hash tag by wrapping the queue name, so each
 * queue's keys share a slot (REDIS_CLUSTER_NODES).
 */
export class DroverKeys implements KeyBuilders {
  constructor(
    readonly prefix: string,
    readonly cluster: boolean,
  ) {}

  /** The prefix BullMQ is given for every Queue/Worker. */
  get bullPrefix(): string {
    return this.prefix;
  }

  /** The name BullMQ is given for a Drover queue: hash-tagged on Cluster. */
  bullQueueName(queue: string): string {
    return this.cluster ? `{${queue}}` : queue;
  }

  /** The key `name` names, its placeholders filled with `parts` in order. */
  // One string built in a loop, no intermediate arrays: some keys are built on every enqueue.
  private build(name: KeyName, ...parts: Part[]): string {
    const segments = SEGMENTS[name];
    const queue = KEY_REGISTRY[name].scope === 'queue';
    // A queue's key starts with the queue's own BullMQ name in place of its first part.
    let key = queue ? `${this.bullPrefix}:${this.bullQueueName(String(parts[0]))}` : `${this.prefix}:{core}`;
    let i = 0;
    for (let s = 0; s < segments.length; s++) {
      const segment = segments[s];
      const value = segment === null ? String(parts[i++]) : segment;
      if (!(queue && s === 0)) key += `:${value}`;
    }
    if (i !== parts.length || parts.includes(undefined as never)) {
      throw new Error(`key ${name} takes ${i} parts, was given ${parts.filter((p) => p !== undefined).length}`);
    }
    return key;
  }

  leader(): string {
    return this.build('leader');
  }
  leaderEpoch(): string {
    return this.build('leaderEpoch');
  }
  leaderCandidate(instanceId: string): string {
    return this.build('leaderCandidate', instanceId);
  }
  schedulerDefs(): string {
    return this.build('schedulerDefs');
  }
  schedulesLater(): string {
    return this.build('schedulesLater');
  }

  routines(): string {
    return this.build('routines');
  }
  routineState(routine: string): string {
    return this.build('routineState', routine);
  }
  slotClaim(routine: string, slot: number): string {
    return this.build('slotClaim', routine, slot);
  }
  routineSkips(routine: string): string {
    return this.build('routineSkips', routine);
  }
  disarm(): string {
    return this.build('disarm');
  }
  routineDue(): string {
    return this.build('routineDue');
  }
  routineChangeSeq(): string {
    return this.build('routineChangeSeq');
  }
  routineChangeLog(): string {
    return this.build('routineChangeLog');
  }
  reconciled(): string {
    return this.build('reconciled');
  }
  routineCounts(): string {
    return this.build('routineCounts');
  }
  routinesChanged(): string {
    return this.build('routinesChanged');
  }
  routineRuns(routine: string): string {
    return this.build('routineRuns', routine);
  }
  routineOpen(routine: string): string {
    return this.build('routineOpen', routine);
  }
  routineStats(routine: string, hourStart: number): string {
    return this.build('routineStats', routine, hourStart);
  }

  /** Producer names by short code and codes by name (runs store the code). */
  producers(): string {
    return this.build('producers');
  }

  /** A run record; `runRecord('')` is the prefix every record key starts with. */
  runRecord(id: string): string {
    return this.build('runRecord', id);
  }
  runsKept(queue: string): string {
    return this.build('runsKept', queue);
  }
  /** A queue's run totals: minute (`m`) or hour (`h`) buckets of the span starting at `spanStart`. */
  queueStats(queue: string, resolution: 'm' | 'h', spanStart: number): string {
    return this.build('queueStats', queue, resolution, spanStart);
  }
  /** A batch's record, its run ids and its settled runs. */
  batch(id: string): string {
    return this.build('batch', id);
  }
  batchRuns(id: string): string {
    return this.build('batchRuns', id);
  }
  batchSettled(id: string): string {
    return this.build('batchSettled', id);
  }
  batches(): string {
    return this.build('batches');
  }
  batchesOpen(): string {
    return this.build('batchesOpen');
  }
  cancel(): string {
    return this.build('cancel');
  }

  queues(): string {
    return this.build('queues');
  }
  queuesChanged(): string {
    return this.build('queuesChanged');
  }
  queuesRanked(): string {
    return this.build('queuesRanked');
  }

  workers(): string {
    return this.build('workers');
  }
  worker(instanceId: string): string {
    return this.build('worker', instanceId);
  }
  processes(role: string): string {
    return this.build('processes', role);
  }
  process(role: string, instanceId: string): string {
    return this.build('process', role, instanceId);
  }

  /** `idHash`: the SHA-256 (hex) of the session id, never the id itself. */
  session(idHash: string): string {
    return this.build('session', idHash);
  }
  audit(): string {
    return this.build('audit');
  }
  auditRefused(): string {
    return this.build('auditRefused');
  }
  operation(id: string): string {
    return this.build('operation', id);
  }
  apiEvents(): string {
    return this.build('apiEvents');
  }

  candidatesAsk(): string {
    return this.build('candidatesAsk');
  }
  candidatesProbe(id: string): string {
    return this.build('candidatesProbe', id);
  }

  bullJob(queue: string, id: string): string {
    return this.build('bullJob', queue, id);
  }
  bullJobLock(queue: string, id: string): string {
    return this.build('bullJobLock', queue, id);
  }
  bullDelayed(queue: string): string {
    return this.build('bullDelayed', queue);
  }
  bullFailed(queue: string): string {
    return this.build('bullFailed', queue);
  }
  bullEvents(queue: string): string {
    return this.build('bullEvents', queue);
  }
  bullDedup(queue: string, dedupId: string): string {
    return this.build('bullDedup', queue, dedupId);
  }
  queueRanked(queue: string): string {
    return this.build('queueRanked', queue);
  }
  keyHeld(queue: string, key: string): string {
    return this.build('keyHeld', queue, key);
  }
  keyRunning(queue: string, key: string): string {
    return this.build('keyRunning', queue, key);
  }
  queueKeys(queue: string): string {
    return this.build('queueKeys', queue);
  }
  retentionSweep(queue: string): string {
    return this.build('retentionSweep', queue);
  }
}
