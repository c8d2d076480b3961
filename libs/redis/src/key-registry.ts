/**
 * Every Redis key and pub/sub channel Drover reads or writes, as BullMQ's `getKeys` lists its
 * scripts' keys: the name a call site asks {@link DroverKeys} for, the key's pattern, its Redis type
 * and how long it lives. The pattern is the key: {@link DroverKeys} builds each key from it, filling
 * each `<placeholder>` with one argument in order, so a key documented here is byte for byte the key
 * in Redis. docs/redis.md lists every entry with its lifetime (a unit test holds the two equal).
 *
 * `core` keys live under `<prefix>:{core}:` — one hash tag, so our Lua scripts may touch several of
 * them atomically on Redis Cluster. `queue` keys live in a BullMQ queue's slot: their pattern starts
 * with `<queue>`, which becomes `<prefix>:<queue>` (`<prefix>:{<queue>}` on Cluster).
 */
export type KeyType = 'string' | 'hash' | 'set' | 'zset' | 'stream' | 'channel';

export interface KeySpec {
  readonly scope: 'core' | 'queue';
  readonly pattern: string;
  readonly type: KeyType;
  /** How long the key lives, as docs/redis.md says it. */
  readonly lives: string;
}

export const KEY_REGISTRY = {
  // Leadership
  leader: {
    scope: 'core',
    pattern: 'leader',
    type: 'string',
    lives: "the leader's lease: expires one lease TTL after its last renewal",
  },
  leaderEpoch: {
    scope: 'core',
    pattern: 'leader-epoch',
    type: 'string',
    lives: 'forever: the fencing counter, only ever incremented',
  },
  leaderCandidate: {
    scope: 'core',
    pattern: 'leader-candidate:<instance>',
    type: 'string',
    lives: 'one lease TTL after that instance last campaigned',
  },
  schedulerDefs: {
    scope: 'core',
    pattern: 'scheduler-defs',
    type: 'hash',
    lives: "what the leader last wrote to the fires queue per routine; a routine's entry goes with its schedule",
  },
  schedulesLater: {
    scope: 'core',
    pattern: 'schedules-later',
    type: 'zset',
    lives:
      'routines whose first slot is beyond the schedule horizon, scored by when the leader writes their Job Schedulers; removed once written',
  },

  // Routines
  routines: {
    scope: 'core',
    pattern: 'routines',
    type: 'hash',
    lives: 'one entry per routine, while the routine exists',
  },
  routineState: {
    scope: 'core',
    pattern: 'rstate:<routine>',
    type: 'hash',
    lives: 'while the routine exists; deleting it deletes its state and run indexes',
  },
  slotClaim: {
    scope: 'core',
    pattern: 'slot:<routine>:<slot>',
    type: 'string',
    lives: '1 min once done; 10 min past the slot if armed; pending: 3 min past it',
  },
  routineSkips: {
    scope: 'core',
    pattern: 'rskips:<routine>',
    type: 'hash',
    lives: "a routine's pending operator skips (at most 100) until decided; expires a day after the latest",
  },
  disarm: {
    scope: 'core',
    pattern: 'disarm',
    type: 'hash',
    lives: 'armed runs of deleted routines, until the leader withdraws them (seconds)',
  },
  routineDue: {
    scope: 'core',
    pattern: 'routine-due',
    type: 'zset',
    lives: "one member per routine, scored by when the leader's watchdog next looks at it; removed with the routine",
  },
  routineChangeSeq: {
    scope: 'core',
    pattern: 'routine-change-seq',
    type: 'string',
    lives: 'forever: counts the routine changes the reconciler acts on, only ever incremented',
  },
  routineChangeLog: {
    scope: 'core',
    pattern: 'routine-changes',
    type: 'zset',
    lives: 'routines changed among the newest 10 000 changes, scored by the change count',
  },
  reconciled: {
    scope: 'core',
    pattern: 'reconciled',
    type: 'hash',
    lives: "forever: the change count the leader's last complete reconcile covered",
  },
  routineCounts: {
    scope: 'core',
    pattern: 'routine-counts',
    type: 'hash',
    lives: 'forever: routines per status, kept by every write, recomputed by each full pass',
  },
  routinesChanged: {
    scope: 'core',
    pattern: 'routines-changed',
    type: 'channel',
    lives: 'a channel: announces definition changes',
  },
  routineRuns: {
    scope: 'core',
    pattern: 'routine-runs:<routine>',
    type: 'zset',
    lives: 'the newest 1000 runs of the routine; deleted with the routine',
  },
  routineOpen: {
    scope: 'core',
    pattern: 'routine-open:<routine>',
    type: 'zset',
    lives: 'runs of `forbid`/`replace`/`buffer-one` routines that may be open; pruned on each fire',
  },
  routineStats: {
    scope: 'core',
    pattern: 'rstats:<routine>:<hour start>',
    type: 'hash',
    lives: "one routine's run statistics for one hour; expires after the longest stats window",
  },

  // Runs
  runRecord: {
    scope: 'core',
    pattern: 'run:<run id>',
    type: 'string',
    lives: "skipped/canceled records: the queue's retention, at most `count` per queue, none older than `ageMs`",
  },
  producers: {
    scope: 'core',
    pattern: 'producers',
    type: 'hash',
    lives: "forever: each producer name's code (`n:<name>`), each code's name (`c:<code>`), the last code",
  },
  runsKept: {
    scope: 'core',
    pattern: 'runs-kept:<queue>',
    type: 'zset',
    lives: "the queue's index of run records; expires `ageMs` after its last write",
  },
  queueStats: {
    scope: 'core',
    pattern: 'qstats:<queue>:<m or h>:<span start>',
    type: 'hash',
    lives: "a queue's run totals per minute (10 min a hash, kept 26 h) or per hour (6 h a hash, kept 8 days)",
  },
  // Batches: a record per batch, its run ids and which of them settled, and the index of batches
  batch: {
    scope: 'core',
    pattern: 'batch:<batch id>',
    type: 'hash',
    lives: "30 days while open; once its callbacks fired, the retention age of its runs' queues (a day at least)",
  },
  batchRuns: {
    scope: 'core',
    pattern: 'batch:<batch id>:runs',
    type: 'zset',
    lives: "the batch's run ids in order (score = position); expires with the batch",
  },
  batchSettled: {
    scope: 'core',
    pattern: 'batch:<batch id>:settled',
    type: 'set',
    lives: "the batch's runs counted as settled (each once); expires with the batch",
  },
  batches: {
    scope: 'core',
    pattern: 'batches',
    type: 'zset',
    lives: 'the newest 10 000 batches by creation time, none older than 30 days',
  },
  batchesOpen: {
    scope: 'core',
    pattern: 'batches-open',
    type: 'zset',
    lives: 'batches not yet complete, by creation time; one leaves when it completes or after 30 days',
  },
  cancel: {
    scope: 'core',
    pattern: 'cancel',
    type: 'channel',
    lives: 'a channel: asks the worker holding a run to abort it',
  },

  // Queues
  queues: {
    scope: 'core',
    pattern: 'queues',
    type: 'hash',
    lives: 'one entry per queue, while the queue is defined',
  },
  queuesChanged: {
    scope: 'core',
    pattern: 'queues-changed',
    type: 'channel',
    lives: 'a channel: announces queue definition changes',
  },
  queuesRanked: {
    scope: 'core',
    pattern: 'queues-ranked',
    type: 'channel',
    lives: 'a channel: announces a queue that became ranked',
  },

  // Processes
  workers: {
    scope: 'core',
    pattern: 'workers',
    type: 'set',
    lives: 'ids of live workers; readers drop ids whose entry expired',
  },
  worker: {
    scope: 'core',
    pattern: 'worker:<instance>',
    type: 'string',
    lives: '15 s (three heartbeats) unless refreshed; removed on shutdown',
  },
  processes: {
    scope: 'core',
    pattern: 'processes:<role>',
    type: 'set',
    lives: 'ids of live scheduler and api processes; readers drop ids whose entry expired',
  },
  process: {
    scope: 'core',
    pattern: 'process:<role>:<instance>',
    type: 'string',
    lives: '15 s (three presence beats) unless refreshed; removed on shutdown',
  },

  // The api
  session: {
    scope: 'core',
    pattern: 'session:<sha256 of session id>',
    type: 'string',
    lives: '12 h from login (using it does not extend it); deleted on logout',
  },
  audit: {
    scope: 'core',
    pattern: 'audit',
    type: 'stream',
    lives: 'the newest ~10,000 audited calls (trimmed approximately)',
  },
  auditRefused: {
    scope: 'core',
    pattern: 'audit:refused',
    type: 'stream',
    lives: 'the newest ~1,000 refused calls (trimmed approximately)',
  },
  operation: {
    scope: 'core',
    pattern: 'operation:<operation id>',
    type: 'hash',
    lives: '24 h after its last write',
  },
  apiEvents: {
    scope: 'core',
    pattern: 'api-events',
    type: 'channel',
    lives: "a channel: changes for every api replica's event streams",
  },

  // A selector routine's dry run: the api asks, one scheduler replica answers
  candidatesAsk: {
    scope: 'core',
    pattern: 'candidates-ask',
    type: 'channel',
    lives: "a channel: asks the scheduler replicas for a selector routine's candidate ranking",
  },
  candidatesProbe: {
    scope: 'core',
    pattern: 'candidates-probe:<probe id>',
    type: 'string',
    lives: '1 min: claimed by the first scheduler replica that took the request, then its answer',
  },

  // BullMQ's keys Drover reads or writes itself, and Drover's own keys in a queue's slot
  bullJob: {
    scope: 'queue',
    pattern: '<queue>:<run id>',
    type: 'hash',
    lives: "BullMQ's job (a run): finished ones by the queue's retention, parked ones until replayed or purged",
  },
  bullJobLock: {
    scope: 'queue',
    pattern: '<queue>:<run id>:lock',
    type: 'string',
    lives: "BullMQ's lock of a running run: one lease, renewed by the worker that holds it",
  },
  bullDelayed: {
    scope: 'queue',
    pattern: '<queue>:delayed',
    type: 'zset',
    lives: "BullMQ's: runs waiting for their time, until they start",
  },
  bullFailed: {
    scope: 'queue',
    pattern: '<queue>:failed',
    type: 'zset',
    lives: "BullMQ's: the parked area, until replayed or purged",
  },
  bullEvents: {
    scope: 'queue',
    pattern: '<queue>:events',
    type: 'stream',
    lives: "BullMQ's event stream, capped by BullMQ",
  },
  bullDedup: {
    scope: 'queue',
    pattern: '<queue>:de:<dedup id>',
    type: 'string',
    lives: "BullMQ's deduplication marker: a fired slot's lives 3 minutes past the slot (its pending window)",
  },
  queueRanked: {
    scope: 'queue',
    pattern: '<queue>:drover:ranked',
    type: 'string',
    lives: 'forever once set: a queue, once ranked, stays ranked',
  },
  keyHeld: {
    scope: 'queue',
    pattern: '<queue>:drover:key-held:<concurrency key>',
    type: 'zset',
    lives: 'runs of one concurrency key held back by its limit, by enqueue time, until they start or are canceled',
  },
  keyRunning: {
    scope: 'queue',
    pattern: '<queue>:drover:key-running:<concurrency key>',
    type: 'set',
    lives: 'runs of one concurrency key holding one of its places, until they settle (a repair drops ended ones)',
  },
  queueKeys: {
    scope: 'queue',
    pattern: '<queue>:drover:keys',
    type: 'zset',
    lives: 'concurrency keys with held or running runs, by how many; a key leaves when it has none',
  },
  retentionSweep: {
    scope: 'queue',
    pattern: '<queue>:drover:retention-sweep',
    type: 'string',
    lives: "one sweep interval: the lock of the queue's retention sweep",
  },
} as const satisfies Record<string, KeySpec>;

export type KeyName = keyof typeof KEY_REGISTRY;
