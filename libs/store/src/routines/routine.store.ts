import { isDeepStrictEqual } from 'node:util';
import { parseBundle, type Routine } from '@drover/core';
import { withDroverScripts, type DroverKeys, type RedisClient } from '@drover/redis';
import {
  decodeRecord,
  decodeState,
  encodeRecord,
  encodeState,
  type RoutineOrigin,
  type RoutineRecord,
  type RoutineState,
} from './routine-record';

/** What an apply changed, by routine name. */
export interface ApplyDiff {
  created: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
}

/** Thrown for an operation on a routine that does not exist. */
export class RoutineNotFoundError extends Error {
  constructor(readonly routine: string) {
    super(`routine "${routine}" does not exist`);
    this.name = 'RoutineNotFoundError';
  }
}

/**
 * Routines in Redis: one hash of definitions (name → JSON record) and one small state hash per
 * routine. Definitions change rarely (API, apply); state changes on every fire.
 */
export class RoutineStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  get definitionsKey(): string {
    return this.keys.core('routines');
  }

  stateKey(name: string): string {
    return this.keys.core('rstate', name);
  }

  /** Channel on which every definition change is announced (the leader reconciles at once). */
  get changesChannel(): string {
    return this.keys.core('routines-changed');
  }

  async get(name: string): Promise<RoutineRecord | undefined> {
    const raw = await this.redis.hget(this.definitionsKey, name);
    return raw ? decodeRecord(raw) : undefined;
  }

  async list(): Promise<RoutineRecord[]> {
    const all = await this.redis.hgetall(this.definitionsKey);
    return Object.values(all)
      .map((raw) => decodeRecord(raw))
      .sort((a, b) => a.def.name.localeCompare(b.def.name));
  }

  async names(): Promise<string[]> {
    return this.redis.hkeys(this.definitionsKey);
  }

  /**
   * Creates or replaces a routine (already validated by core). A changed definition bumps the
   * version; an identical one writes nothing. The cursor starts at `now` for a new routine so it
   * never "catches up" slots from before it existed.
   */
  async upsert(def: Routine, origin: RoutineOrigin, now: number): Promise<'created' | 'updated' | 'unchanged'> {
    const prev = await this.get(def.name);
    if (prev && isDeepStrictEqual(prev.def, def) && prev.origin === origin) return 'unchanged';
    const record: RoutineRecord = {
      def,
      origin,
      createdAt: prev?.createdAt ?? now,
      updatedAt: now,
      version: (prev?.version ?? 0) + 1,
    };
    const multi = this.redis.multi().hset(this.definitionsKey, def.name, encodeRecord(record));
    if (!prev) multi.hset(this.stateKey(def.name), encodeState({ since: now }));
    // Resuming a paused routine must not catch up the slots it slept through.
    if (prev && prev.def.status !== 'active' && def.status === 'active') {
      multi.hset(this.stateKey(def.name), encodeState({ since: now, lastSlot: now }));
    }
    multi.publish(this.changesChannel, def.name);
    await multi.exec();
    return prev ? 'updated' : 'created';
  }

  /**
   * Creates many routines that do not exist yet in a few round trips (bulk import, benchmarks).
   * Existing names are left untouched and reported back.
   */
  async createMany(
    defs: Routine[],
    origin: RoutineOrigin,
    now: number,
  ): Promise<{ created: string[]; existing: string[] }> {
    const created: string[] = [];
    const existing: string[] = [];
    for (let i = 0; i < defs.length; i += 1000) {
      const chunk = defs.slice(i, i + 1000);
      const pipe = this.redis.pipeline();
      for (const def of chunk) {
        const record: RoutineRecord = { def, origin, createdAt: now, updatedAt: now, version: 1 };
        pipe.hsetnx(this.definitionsKey, def.name, encodeRecord(record));
      }
      const res = (await pipe.exec()) ?? [];
      const states = this.redis.pipeline();
      chunk.forEach((def, j) => {
        if (Number(res[j]?.[1]) === 1) {
          created.push(def.name);
          states.hset(this.stateKey(def.name), encodeState({ since: now }));
        } else existing.push(def.name);
      });
      await states.exec();
    }
    if (created.length) await this.redis.publish(this.changesChannel, '*');
    return { created, existing };
  }

  async remove(name: string): Promise<boolean> {
    const res = await this.redis
      .multi()
      .hdel(this.definitionsKey, name)
      .del(this.stateKey(name))
      .publish(this.changesChannel, name)
      .exec();
    return Number(res?.[0]?.[1] ?? 0) > 0;
  }

  /** Changes the status (pause/resume/archive) keeping everything else. */
  async setStatus(name: string, status: Routine['status'], now: number): Promise<RoutineRecord> {
    const prev = await this.get(name);
    if (!prev) throw new RoutineNotFoundError(name);
    await this.upsert({ ...prev.def, status }, prev.origin, now);
    return (await this.get(name))!;
  }

  /**
   * Applies a policy bundle's routines: file routines are created/updated, file routines no
   * longer in the bundle are removed, API-made routines are left alone. `dryRun` only diffs.
   */
  async applyFileRoutines(routines: Routine[], now: number, dryRun = false): Promise<ApplyDiff> {
    const diff: ApplyDiff = { created: [], updated: [], removed: [], unchanged: [] };
    const existing = new Map((await this.list()).map((r) => [r.def.name, r]));
    for (const def of routines) {
      const prev = existing.get(def.name);
      const same = prev && prev.origin === 'file' && isDeepStrictEqual(prev.def, def);
      if (same) diff.unchanged.push(def.name);
      else if (dryRun) (prev ? diff.updated : diff.created).push(def.name);
      else {
        const outcome = await this.upsert(def, 'file', now);
        if (outcome === 'created') diff.created.push(def.name);
        else if (outcome === 'updated') diff.updated.push(def.name);
        else diff.unchanged.push(def.name);
      }
    }
    const wanted = new Set(routines.map((r) => r.name));
    for (const [name, rec] of existing) {
      if (rec.origin !== 'file' || wanted.has(name)) continue;
      if (!dryRun) await this.remove(name);
      diff.removed.push(name);
    }
    return diff;
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
    const pipe = this.redis.pipeline();
    for (const n of names) pipe.hgetall(this.stateKey(n));
    const res = (await pipe.exec()) ?? [];
    return new Map(names.map((n, i) => [n, decodeState((res[i]?.[1] as Record<string, string>) ?? {})]));
  }

  async patchState(name: string, patch: Partial<RoutineState>): Promise<void> {
    const encoded = encodeState(patch);
    const del = Object.keys(encoded).filter((k) => encoded[k] === '');
    const set = Object.fromEntries(Object.entries(encoded).filter(([, v]) => v !== ''));
    const multi = this.redis.multi();
    if (Object.keys(set).length) multi.hset(this.stateKey(name), set);
    if (del.length) multi.hdel(this.stateKey(name), ...del);
    await multi.exec();
  }

  /**
   * Moves the catch-up cursor forward only (concurrent dispatchers may finish out of order) and
   * patches other state fields, in one round trip.
   */
  async advanceCursor(name: string, slot: number | undefined, patch: Partial<RoutineState> = {}): Promise<void> {
    const fields = Object.entries(encodeState(patch)).flat();
    await withDroverScripts(this.redis).advanceCursor(
      this.stateKey(name),
      slot === undefined ? '' : String(slot),
      ...fields,
    );
  }
}

/** Validates one routine definition with core's rules (for API bodies); errors name the field. */
export function validateRoutine(
  raw: unknown,
  knownQueues: string[],
): { ok: true; routine: Routine } | { ok: false; errors: string[] } {
  const res = parseBundle({ routines: [raw] }, { knownQueues });
  if (!res.ok) return res;
  return { ok: true, routine: res.bundle.routines[0]! };
}
