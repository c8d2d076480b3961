import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisClient } from './redis-connections';

/**
 * Drover's Lua scripts, named `<command>-<numKeys>.lua` as BullMQ names its own; `n` for a script
 * that takes any number of keys (the caller passes the count first, as with EVAL).
 */
const SCRIPT_FILES = [
  'leaderAcquire-2',
  'leaderRenew-1',
  'leaderRelease-1',
  'fencedHset-2',
  'fencedZset-2',
  'claimSlot-4',
  'finishSlot-1',
  'revokeSlot-2',
  'startArmedRun-3',
  'advanceCursor-6',
  'putRoutine-7',
  'enableRoutine-6',
  'removeRoutine-10',
  'putTombstone-2',
  'readLeanJobs-n',
  'indexRoutines-n',
  'decideApproval-2',
  'countAwaitingApproval-1',
  'saveCheckpoint-2',
  'settleBatchRun-3',
  'releaseKey-3',
] as const;

export type DroverScriptName = (typeof SCRIPT_FILES)[number] extends `${infer N}-${string}` ? N : never;

/** One job hash as {@link DroverScripts.readLeanJobs} answers it: fields and values, then what it left out. */
export type LeanJobReply = [hash: string[], omitted: (string | number)[]];

/** Negative replies of our scripts, mapped to meaning (as BullMQ's ErrorCode does). */
export enum ScriptCode {
  StaleToken = -1,
  /** The routine a slot belongs to no longer exists. */
  RoutineGone = -2,
  /** A slot behind the routine's cursor whose claim is gone: it was handled long ago. */
  SlotPassed = -3,
}

export interface DroverScripts {
  /** `holder` is `<instance>|<nonce>`; answers [epoch, lease value], epoch 0 when another holder has it. */
  leaderAcquire(leaderKey: string, epochKey: string, holder: string, leaseMs: number): Promise<[number, string]>;
  leaderRenew(leaderKey: string, token: string, leaseMs: number): Promise<number>;
  leaderRelease(leaderKey: string, token: string): Promise<number>;
  fencedHset(leaderKey: string, hashKey: string, token: string, ...fieldValues: string[]): Promise<number>;
  /** Member, score pairs ('' removes the member); 1, or -1 (StaleToken) and nothing written. */
  fencedZset(leaderKey: string, zsetKey: string, token: string, ...memberScores: (string | number)[]): Promise<number>;
  claimSlot(
    leaderKey: string,
    slotKey: string,
    stateKey: string,
    dueKey: string,
    token: string,
    arm: '-' | 'a',
    decision: string,
    ttlMs: number,
    slot: number,
    armedEntry: string,
    now: number,
    takeoverOnly: '' | '1',
    routine: string,
    version: number,
    nextSlot: number | '+inf',
  ): Promise<[number, number | string]>;
  finishSlot(slotKey: string, pending: string, ttlMs: number): Promise<number>;
  revokeSlot(slotKey: string, stateKey: string, armedEntry: string, version: number): Promise<[number, string]>;
  startArmedRun(
    slotKey: string,
    stateKey: string,
    skipsKey: string,
    version: number,
    rev: number,
    slot: number,
  ): Promise<number>;
  advanceCursor(
    stateKey: string,
    dueKey: string,
    changeLogKey: string,
    changeSeqKey: string,
    definitionsKey: string,
    countsKey: string,
    cursor: string,
    routine: string,
    version: number,
    nextSlot: number | '+inf',
    ...fieldValues: string[]
  ): Promise<number>;
  putRoutine(
    leaderKey: string,
    definitionsKey: string,
    stateKey: string,
    dueKey: string,
    changeLogKey: string,
    changeSeqKey: string,
    countsKey: string,
    token: string,
    name: string,
    expectedVersion: number,
    record: string,
    version: number,
    channel: string,
    now: number | '',
    mode: 'create' | 'resume' | '',
    pausedFrom?: number | '',
  ): Promise<[number, number]>;
  /** Clears `launcherFields` of a routine's state; 1 when it was disabled, 0 when not, -2 when there is no such routine. */
  enableRoutine(
    definitionsKey: string,
    stateKey: string,
    dueKey: string,
    changeLogKey: string,
    changeSeqKey: string,
    countsKey: string,
    name: string,
    channel: string,
    ...launcherFields: string[]
  ): Promise<number>;
  removeRoutine(
    leaderKey: string,
    definitionsKey: string,
    stateKey: string,
    disarmKey: string,
    recentKey: string,
    openKey: string,
    dueKey: string,
    changeLogKey: string,
    changeSeqKey: string,
    countsKey: string,
    token: string,
    name: string,
    channel: string,
    expectedVersion: number | '',
  ): Promise<[number, number]>;
  putTombstone(
    key: string,
    indexKey: string,
    record: string,
    ttlMs: number,
    mode: 'NX' | '',
    now: number,
    count: number,
    id: string,
    keyPrefix: string,
  ): Promise<number>;
  /** `numKeys` job keys of one queue, then the inline cap in bytes (see readLeanJobs-n.lua). */
  readLeanJobs(numKeys: number, ...keysThenCap: (string | number)[]): Promise<LeanJobReply[]>;
  /** Counts a batch's run as settled once; [due, succeeded, parked, canceled, total, callbacks, retentionMs] (see settleBatchRun-3.lua). */
  settleBatchRun(
    batchKey: string,
    settledKey: string,
    openKey: string,
    runId: string,
    outcome: string,
    now: number,
    batchId: string,
  ): Promise<[number, number, number, number, number, string, number]>;
  /**
   * Holds run `holdId` of a key and/or frees the place of run `endedId`, then moves the oldest held
   * runs into the free places; answers each one's id and due time, 0 for now (see releaseKey-3.lua).
   */
  releaseKey(
    heldKey: string,
    runningKey: string,
    keysKey: string,
    limit: number,
    key: string,
    jobKeyPrefix: string,
    holdId: string,
    heldAt: number,
    endedId: string,
  ): Promise<(string | number)[]>;
  /** `numKeys` keys (leader, index, then one state hash per routine), the token, then name, score, guard per routine (see indexRoutines-n.lua). */
  indexRoutines(numKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  /** 1 when the job still held back with exactly `readData` now carries `newData`, else 0 (see decideApproval-2.lua). */
  decideApproval(jobKey: string, delayedKey: string, id: string, readData: string, newData: string): Promise<number>;
  /** Runs of a queue awaiting approval among the `limit` furthest-due delayed jobs (see countAwaitingApproval-1.lua). */
  countAwaitingApproval(delayedKey: string, jobKeyPrefix: string, limit: number): Promise<number>;
  /**
   * Writes `field` of a job hash if `token` still holds the job's lock; 1, or -1 (StaleToken) when it
   * does not. `data`: '' leaves the job's data, '+' marks it (`"ck":1`), else it is the new data.
   */
  saveCheckpoint(
    jobKey: string,
    lockKey: string,
    token: string,
    field: string,
    value: string,
    data: string,
  ): Promise<number>;
}

const defined = new WeakSet<object>();

/**
 * Registers the scripts on a client (ioredis caches them with EVALSHA) and returns it typed.
 * Idempotent per client.
 */
export function withDroverScripts(client: RedisClient): RedisClient & DroverScripts {
  if (!defined.has(client)) {
    for (const file of SCRIPT_FILES) {
      const [name, keys] = file.split('-') as [string, string];
      const lua = readFileSync(join(__dirname, 'lua', `${file}.lua`), 'utf8');
      client.defineCommand(name, keys === 'n' ? { lua } : { numberOfKeys: Number(keys), lua });
    }
    defined.add(client);
  }
  return client as RedisClient & DroverScripts;
}
