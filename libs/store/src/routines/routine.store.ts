import {
  fileRoutineToApply,
  nextRoutineRecord,
  RoutineArchivedError,
  RoutineNotFoundError,
  statusAfter,
  RoutineVersionConflictError,
  upsertChange,
  type Origin,
  type Pause,
  type Routine,
  type RoutineChange,
  type RoutineRecord,
  type StatusAct,
} from '@drover/core';
import { ScriptCode, StaleLeaderError, withDroverScripts, type DroverKeys, type RedisClient } from '@drover/redis';
import { decodeArmedEntries, type ArmedEntry } from '../slots/slot-claim';
import type { CursorNext } from '../slots/slot-claims.store';
import { decodeRecord, decodeState, encodeRecord, encodeState, type RoutineState } from './routine-record';
import { hscanAll, pacer, READ_CHUNK } from '../bulk-reads';
import { createRoutines } from './routine-bulk';
import { enableRoutine } from './routine-enable';

/** The order routines are listed in (what localeCompare gives, at a fraction of its cost per call). */
const BY_NAME = new Intl.Collator();

/** What an apply changed, by routine name. */
export interface ApplyDiff {
  created: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
}

/** Options of a write: fenced by the leader's token (apply on election), or conditional on a version. */
export interface RoutineWriteOptions {
  /** Leader fencing token: the write is refused (StaleLeaderError) once it is not current. */
  token?: string;
  /** Write only if the stored version is this one (0: only if the routine does not exist). */
  ifVersion?: number;
  /** Who makes the change (an API token's name, "client"), recorded on the routine; unset for the file. */
  by?: string;
}

/** Concurrent writers retry a lost compare-and-set this many times before giving up. */
const CAS_ATTEMPTS = 10;

/**
 * Routines in Redis: one hash of definitions (name → JSON record) and one small state hash per
 * routine. Definitions change rarely (API, apply); state changes on every fire. Every write is a
 * compare-and-set on the version (never a lost update), may be fenced by the leader token, and is
 * announced on {@link changesChannel}.
 */
export class RoutineStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  get definitionsKey(): string {
    return this.keys.routines();
  }

  stateKey(name: string): string {
    return this.keys.routineState(name);
  }

  /** Armed runs of deleted routines, waiting for the leader to withdraw them (name → armed list). */
  get disarmKey(): string {
    return this.keys.disarm();
  }

  /** Channel on which every definition change is announced (the leader reconciles at once). */
  get changesChannel(): string {
    return this.keys.routinesChanged();
  }

  async get(name: string): Promise<RoutineRecord | undefined> {
    const raw = await this.redis.hget(this.definitionsKey, name);
    return raw ? decodeRecord(raw) : undefined;
  }

  /**
   * Every routine, by name; `{ ordered: false }` skips the sort for a pass that looks at each one
   * on its own (at 100 000 routines the collator's sort is a few hundred ms of a leader's turn).
   */
  async list(opts: { ordered?: boolean } = {}): Promise<RoutineRecord[]> {
    const all = [...(await hscanAll(this.redis, this.definitionsKey)).values()];
    const records: RoutineRecord[] = [];
    const pace = pacer();
    for (const raw of all) {
      await pace();
      records.push(decodeRecord(raw));
    }
    return opts.ordered === false ? records : records.sort((a, b) => BY_NAME.compare(a.def.name, b.def.name));
  }

  async names(): Promise<string[]> {
    return this.redis.hkeys(this.definitionsKey);
  }

  /**
   * Creates or replaces a routine (already validated by core). A changed definition bumps the
   * version; an identical one writes nothing. The cursor starts at `now` for a new routine so it
   * never "catches up" slots from before it existed, and skips to `now` on resume.
   *
   * A file routine changed with origin `api` stays a file routine (the next apply manages it
   * again) but is marked as drifted from the file until that apply overwrites the change.
   */
  async upsert(
    def: Routine,
    origin: Origin,
    now: number,
    opts: RoutineWriteOptions = {},
  ): Promise<'created' | 'updated' | 'unchanged'> {
    return this.write(def.name, now, opts, (prev) => upsertChange(prev, def, origin, now, opts.by));
  }

  /**
   * Writes the routine `change` makes of the stored one (undefined: none yet), with a compare-and-set on
   * the version, retried when a concurrent writer won. A pause is kept while the routine stays paused.
   */
  private async write(
    name: string,
    now: number,
    opts: RoutineWriteOptions,
    change: (prev: RoutineRecord | undefined) => RoutineChange,
  ): Promise<'created' | 'updated' | 'unchanged'> {
    for (let attempt = 1; ; attempt++) {
      const prev = await this.get(name);
      const current = prev?.version ?? 0;
      if (opts.ifVersion !== undefined && opts.ifVersion !== current) {
        throw new RoutineVersionConflictError(name, opts.ifVersion, current);
      }
      const record = nextRoutineRecord(prev, change(prev), now, opts.by);
      if (!record) return 'unchanged';
      const { def } = record;
      const resumed = prev && prev.def.status !== 'active' && def.status === 'active';
      const [code, stored] = await withDroverScripts(this.redis).putRoutine(
        this.keys.leader(),
        this.definitionsKey,
        this.stateKey(name),
        this.keys.routineDue(),
        this.keys.routineChangeLog(),
        this.keys.routineChangeSeq(),
        this.keys.routineCounts(),
        opts.token ?? '',
        name,
        current,
        encodeRecord(record),
        record.version,
        this.changesChannel,
        now,
        !prev ? 'create' : resumed ? 'resume' : '',
        resumed && prev.def.status === 'paused' && prev.pause ? prev.pause.at : '',
      );
      if (code === ScriptCode.StaleToken) throw new StaleLeaderError(`routine "${name}"`);
      if (code === 1) return prev ? 'updated' : 'created';
      if (opts.ifVersion !== undefined || attempt >= CAS_ATTEMPTS) {
        throw new RoutineVersionConflictError(name, opts.ifVersion ?? current, stored);
      }
    }
  }

  /**
   * Pauses a routine (it fires nothing; manual triggers still run), recording who, why and until
   * when; the leader resumes it by itself at `until`. Pausing a paused routine replaces the pause.
   * @throws RoutineNotFoundError
   */
  async pause(name: string, pause: Pause, now: number, opts: RoutineWriteOptions = {}): Promise<RoutineRecord> {
    await this.write(name, now, opts, (prev) => {
      const { status } = this.statusAfter(name, prev, 'pause');
      return { def: { ...prev!.def, status }, origin: prev!.origin, pause };
    });
    return (await this.get(name))!;
  }

  /**
   * Resumes a routine; slots it slept through are not caught up.
   * @throws RoutineNotFoundError; RoutineArchivedError for an archived one
   */
  async resume(name: string, now: number, opts: RoutineWriteOptions = {}): Promise<RoutineRecord> {
    return this.act(name, 'resume', now, opts);
  }

  /**
   * Archives a routine: it fires nothing (the leader removes its Job Scheduler and withdraws its
   * armed runs, as for any change that stops it firing) and keeps its runs and state. Archiving
   * an archived routine changes nothing. @throws RoutineNotFoundError
   */
  async archive(name: string, now: number, opts: RoutineWriteOptions = {}): Promise<RoutineRecord> {
    return this.act(name, 'archive', now, opts);
  }

  /**
   * Unarchives a routine: it is active again, and slots it slept through are not caught up (like a
   * resume). A routine that is not archived is left as it is. @throws RoutineNotFoundError
   */
  async unarchive(name: string, now: number, opts: RoutineWriteOptions = {}): Promise<RoutineRecord> {
    return this.act(name, 'unarchive', now, opts);
  }

  private async act(name: string, act: StatusAct, now: number, opts: RoutineWriteOptions): Promise<RoutineRecord> {
    await this.write(name, now, opts, (prev) => {
      const { status, same } = this.statusAfter(name, prev, act);
      if (same) return { def: prev!.def, origin: prev!.origin };
      return {
        def: { ...prev!.def, status },
        origin: prev!.origin,
        ...(status === 'archived' && { archive: { at: now, ...(opts.by !== undefined && { by: opts.by }) } }),
      };
    });
    return (await this.get(name))!;
  }

  /** Core's rule for `act` on the stored routine. @throws RoutineNotFoundError, RoutineArchivedError */
  private statusAfter(name: string, prev: RoutineRecord | undefined, act: StatusAct) {
    if (!prev) throw new RoutineNotFoundError(name);
    const next = statusAfter(prev.def.status, act);
    if ('refused' in next) throw new RoutineArchivedError(name, next.refused);
    return next;
  }

  /** An operator's re-enable of a routine its launcher disabled (see {@link enableRoutine}). */
  async enable(name: string): Promise<boolean> {
    return enableRoutine(this.redis, this.keys, name, this.changesChannel);
  }

  /** Creates many routines that do not exist yet in a few round trips (see {@link createRoutines}). */
  async createMany(defs: Routine[], origin: Origin, now: number): Promise<{ created: string[]; existing: string[] }> {
    return createRoutines(this.redis, this.keys, defs, origin, now);
  }

  /** Many definitions by name, a thousand at a time (HMGET); a missing one is left out. */
  async getMany(names: string[]): Promise<Map<string, RoutineRecord>> {
    const out = new Map<string, RoutineRecord>();
    for (let from = 0; from < names.length; from += READ_CHUNK) {
      const chunk = names.slice(from, from + READ_CHUNK);
      const raws = await this.redis.hmget(this.definitionsKey, ...chunk);
      chunk.forEach((n, i) => raws[i] && out.set(n, decodeRecord(raws[i])));
    }
    return out;
  }

  /**
   * Deletes a routine, its state and its run indexes (its runs stay until retention removes them).
   * Runs armed ahead of their slots are handed to the leader to withdraw in the same step, and
   * workers refuse to start them anyway. Returns false if there was no such routine.
   */
  async remove(name: string, opts: RoutineWriteOptions = {}): Promise<boolean> {
    const [code, current] = await withDroverScripts(this.redis).removeRoutine(
      this.keys.leader(),
      this.definitionsKey,
      this.stateKey(name),
      this.disarmKey,
      this.keys.routineRuns(name),
      this.keys.routineOpen(name),
      this.keys.routineDue(),
      this.keys.routineChangeLog(),
      this.keys.routineChangeSeq(),
      this.keys.routineCounts(),
      opts.token ?? '',
      name,
      this.changesChannel,
      opts.ifVersion ?? '',
    );
    if (code === ScriptCode.StaleToken) throw new StaleLeaderError(`routine "${name}"`);
    if (code === 0 && current !== 0) throw new RoutineVersionConflictError(name, opts.ifVersion ?? 0, current);
    // Its pending operator skips go too (they would expire a day after their slots anyway).
    if (code === 1) await this.redis.del(this.keys.routineSkips(name));
    return code === 1;
  }

  /** Sets the status keeping everything else, with no rule for acts (tests, imports). @throws RoutineNotFoundError */
  async setStatus(
    name: string,
    status: Routine['status'],
    now: number,
    opts: RoutineWriteOptions = {},
  ): Promise<RoutineRecord> {
    await this.write(name, now, opts, (prev) => {
      if (!prev) throw new RoutineNotFoundError(name);
      return { def: { ...prev.def, status }, origin: prev.origin };
    });
    return (await this.get(name))!;
  }

  /**
   * Applies a policy bundle's routines: file routines are created/updated, file routines no
   * longer in the bundle are removed, API-made routines are left alone. `dryRun` only diffs.
   * `token` fences every write (the leader applying DROVER_CONFIG).
   *
   * An API edit of a file routine is overwritten (its drift cleared). A pause someone made (API,
   * client) survives: pausing is an operator's act, and every new leader applies the file again.
   */
  async applyFileRoutines(
    routines: Routine[],
    now: number,
    opts: { dryRun?: boolean; token?: string } = {},
  ): Promise<ApplyDiff> {
    const { dryRun = false, token } = opts;
    const diff: ApplyDiff = { created: [], updated: [], removed: [], unchanged: [] };
    const existing = new Map((await this.list()).map((r) => [r.def.name, r]));
    for (const fileDef of routines) {
      const prev = existing.get(fileDef.name);
      const { def, unchanged } = fileRoutineToApply(prev, fileDef);
      if (unchanged) diff.unchanged.push(def.name);
      else if (dryRun) (prev ? diff.updated : diff.created).push(def.name);
      else {
        const outcome = await this.upsert(def, 'file', now, { token });
        if (outcome === 'created') diff.created.push(def.name);
        else if (outcome === 'updated') diff.updated.push(def.name);
        else diff.unchanged.push(def.name);
      }
    }
    const wanted = new Set(routines.map((r) => r.name));
    for (const [name, rec] of existing) {
      if (rec.origin !== 'file' || wanted.has(name)) continue;
      if (!dryRun) await this.remove(name, { token });
      diff.removed.push(name);
    }
    return diff;
  }

  /** Armed runs of deleted routines not yet withdrawn by the leader, by routine. */
  async pendingDisarms(): Promise<Map<string, ArmedEntry[]>> {
    const all = await this.redis.hgetall(this.disarmKey);
    return new Map(Object.entries(all).map(([name, raw]) => [name, decodeArmedEntries(raw)]));
  }

  /**
   * Forgets a deleted routine's pending disarms once withdrawn. An entry appended meanwhile (the
   * name re-created and deleted again within one pass) is dropped too: workers still refuse to
   * start such a run, because its routine's state no longer matches.
   */
  async clearPendingDisarms(name: string): Promise<void> {
    await this.redis.hdel(this.disarmKey, name);
  }

  /** The definition and the state in one round trip (the dispatcher's hot path). */
  async getWithState(name: string): Promise<{ record?: RoutineRecord; state: RoutineState }> {
    const res = (await this.redis.pipeline().hget(this.definitionsKey, name).hgetall(this.stateKey(name)).exec()) ?? [];
    const raw = res[0]?.[1] as string | null;
    return {
      record: raw ? decodeRecord(raw) : undefined,
      state: decodeState((res[1]?.[1] as Record<string, string>) ?? {}),
    };
  }

  async getState(name: string): Promise<RoutineState> {
    return decodeState(await this.redis.hgetall(this.stateKey(name)));
  }

  async getStates(names: string[]): Promise<Map<string, RoutineState>> {
    const states = new Map<string, RoutineState>();
    const pace = pacer();
    // In pipelines of a thousand: the commands of one pipeline go out together, and a command the
    // process sends meanwhile (a fire's claim) would wait behind all of them on the connection.
    for (let from = 0; from < names.length; from += READ_CHUNK) {
      const chunk = names.slice(from, from + READ_CHUNK);
      const pipe = this.redis.pipeline();
      for (const n of chunk) pipe.hgetall(this.stateKey(n));
      const res = (await pipe.exec()) ?? [];
      for (const [i, n] of chunk.entries()) {
        await pace();
        states.set(n, decodeState((res[i]?.[1] as Record<string, string>) ?? {}));
      }
    }
    return states;
  }

  /**
   * Moves the catch-up cursor forward only (concurrent dispatchers may finish out of order) and
   * patches other state fields, in one round trip. Writes nothing for a deleted routine. With
   * `next`, the watchdog's index moves with the cursor (see advanceCursor-6.lua).
   */
  async advanceCursor(
    name: string,
    slot: number | undefined,
    patch: Partial<RoutineState> = {},
    next?: CursorNext,
  ): Promise<void> {
    const fields = Object.entries(encodeState(patch)).flat();
    await withDroverScripts(this.redis).advanceCursor(
      this.stateKey(name),
      this.keys.routineDue(),
      this.keys.routineChangeLog(),
      this.keys.routineChangeSeq(),
      this.definitionsKey,
      this.keys.routineCounts(),
      slot === undefined ? '' : String(slot),
      name,
      next?.version ?? -1,
      next?.slot ?? '+inf',
      ...fields,
    );
  }
}
