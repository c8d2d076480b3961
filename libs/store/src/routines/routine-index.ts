import { ScriptCode, StaleLeaderError, withDroverScripts, type DroverKeys, type RedisClient } from '@drover/redis';
import { READ_CHUNK } from '../bulk-reads';
import type { RoutineState } from './routine-record';
import { CHANGE_LOG_SIZE } from './routine-bulk';

/** One entry of the watchdog's index as the leader writes it (see indexRoutines-n.lua). */
export interface DueEntry {
  name: string;
  /** When to look at the routine next (epoch ms); undefined: never, until it changes. */
  at: number | undefined;
  /** The state the entry was computed from: written only if the routine's state is still that. */
  from: Pick<RoutineState, 'version' | 'lastSlot'>;
}

/** Routines changed since a change count, or `undefined` when the log no longer reaches back that far. */
export interface ChangesSince {
  seq: number;
  names: string[] | undefined;
}

/** Entries written per script call. */
const WRITE_CHUNK = 500;

/**
 * What lets the leader's passes read only what is due or changed, not every routine:
 *
 * - **the watchdog's index** (`routine-due`), a sorted set of routine → when to look at it next: its
 *   expected slot. Every write that moves a cursor moves the entry in the same script (a claim, a
 *   dispatch's cursor); every definition change, pause, resume or creation puts it at 0 (the leader
 *   computes the slot, which needs the trigger); a delete removes it. An entry is never later than
 *   the routine's real next slot, so a pass that reads the entries due up to now − tolerance finds
 *   every overdue routine.
 * - **the change count and log**: every change the reconciler acts on (definitions, deletes, a
 *   routine disabled by its launcher) increments `routine-change-seq` and logs the routine under that
 *   count, in the same script. A pass remembers the count it covered: same count, nothing to read.
 */
export class RoutineIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  /** Routines whose entry is at or before `upTo`, oldest first, with their entries. */
  async due(upTo: number): Promise<{ name: string; at: number }[]> {
    const out: { name: string; at: number }[] = [];
    for (let offset = 0; ; offset += READ_CHUNK) {
      const flat = await this.redis.zrangebyscore(
        this.keys.routineDue(),
        '-inf',
        upTo,
        'WITHSCORES',
        'LIMIT',
        offset,
        READ_CHUNK,
      );
      for (let i = 0; i < flat.length; i += 2) out.push({ name: flat[i]!, at: Number(flat[i + 1]) });
      if (flat.length < READ_CHUNK * 2) return out;
    }
  }

  /** The entry of one routine (tests, diagnostics); undefined when it has none, Infinity for never. */
  async entry(name: string): Promise<number | undefined> {
    const raw = await this.redis.zscore(this.keys.routineDue(), name);
    if (raw === null) return undefined;
    return raw === 'inf' ? Infinity : Number(raw);
  }

  /** How many routines the index holds. */
  async size(): Promise<number> {
    return this.redis.zcard(this.keys.routineDue());
  }

  /** The leader's writes to the index, fenced by its token. @throws StaleLeaderError */
  async put(token: string, entries: DueEntry[]): Promise<void> {
    const scripts = withDroverScripts(this.redis);
    for (let i = 0; i < entries.length; i += WRITE_CHUNK) {
      const chunk = entries.slice(i, i + WRITE_CHUNK);
      const res = await scripts.indexRoutines(
        2 + chunk.length,
        this.keys.leader(),
        this.keys.routineDue(),
        ...chunk.map((e) => this.keys.routineState(e.name)),
        token,
        ...chunk.flatMap((e) => [e.name, e.at ?? '+inf', `${e.from.version ?? ''}|${e.from.lastSlot ?? ''}`]),
      );
      if (res === ScriptCode.StaleToken) throw new StaleLeaderError("the watchdog's index");
    }
  }

  /** Every routine the index holds (a rebuild looks for leftovers of routines that do not exist). */
  async members(): Promise<string[]> {
    const out = new Set<string>();
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.zscan(this.keys.routineDue(), cursor, 'COUNT', READ_CHUNK);
      for (let i = 0; i < flat.length; i += 2) out.add(flat[i]!);
      cursor = next;
    } while (cursor !== '0');
    return [...out];
  }

  /** The change count now (0 before the first change). */
  async seq(): Promise<number> {
    return Number((await this.redis.get(this.keys.routineChangeSeq())) ?? 0);
  }

  /** Routines changed after count `since`, and the count they reach. */
  async changedSince(since: number): Promise<ChangesSince> {
    const seq = await this.seq();
    if (seq === since) return { seq, names: [] };
    if (seq - since > CHANGE_LOG_SIZE || seq < since) return { seq, names: undefined };
    const flat = await this.redis.zrangebyscore(this.keys.routineChangeLog(), `(${since}`, '+inf', 'WITHSCORES');
    const names: string[] = [];
    let reached = seq;
    for (let i = 0; i < flat.length; i += 2) {
      names.push(flat[i]!);
      reached = Math.max(reached, Number(flat[i + 1]));
    }
    return { seq: reached, names };
  }

  /** The change count the last complete reconcile covered (undefined: none recorded). */
  async reconciledSeq(): Promise<number | undefined> {
    const raw = await this.redis.hget(this.keys.reconciled(), 'seq');
    return raw === null ? undefined : Number(raw);
  }

  /** Records that a complete reconcile covered changes up to `seq`; fenced. @throws StaleLeaderError */
  async markReconciled(token: string, seq: number): Promise<void> {
    const res = await withDroverScripts(this.redis).fencedHset(
      this.keys.leader(),
      this.keys.reconciled(),
      token,
      'seq',
      String(seq),
    );
    if (res === ScriptCode.StaleToken) throw new StaleLeaderError('the reconciled change count');
  }

  /** Routines per status, as every write keeps them. */
  async counts(): Promise<Map<string, number>> {
    const raw = await this.redis.hgetall(this.keys.routineCounts());
    return new Map(Object.entries(raw).map(([k, v]) => [k, Number(v)]));
  }

  /** Sets the counts per status from a full pass; fenced. @throws StaleLeaderError */
  async putCounts(token: string, counts: Map<string, number>): Promise<void> {
    const res = await withDroverScripts(this.redis).fencedHset(
      this.keys.leader(),
      this.keys.routineCounts(),
      token,
      ...[...counts].flatMap(([k, n]) => [k, String(n)]),
    );
    if (res === ScriptCode.StaleToken) throw new StaleLeaderError('the routine counts');
  }
}
