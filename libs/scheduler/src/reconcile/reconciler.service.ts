import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Logger } from 'pino';
import { firesOnSchedule, slotBounds, type RoutineRecord, type Trigger } from '@drover/core';
import { LOGGER } from '@drover/logger';
import { Clock, DroverKeys, RedisConnections, StaleLeaderError, writeTogether } from '@drover/redis';
import {
  armFireJobId,
  FIRE_JOB_OPTS,
  hscanAll,
  onceFireJobId,
  pacer,
  RoutineIndex,
  RoutineStore,
  zscanMembers,
} from '@drover/store';
import { armsOnWrite } from '../fires/arming';
import { FiresQueue } from '../fires/fires-queue.provider';
import { routineFingerprint, routineOfScheduler, schedulerFingerprints, schedulerId } from '../fires/fire-job';
import type { Leadership } from '../leadership/leader-elector';
import { DEFAULT_SCHEDULER_OPTIONS, SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';
import { LaterSchedules, splitLater, writeSchedulesAt } from './later-schedules';
import { removeOnce, upsertScheduler } from './timing-writes';
import { withConcurrency, writeInChunks } from './with-concurrency';
import { WrittenSchedules } from './written-schedules';
import type { RoutineSnapshot } from './watchdog.service';

/** BullMQ writes in flight at once: enough to keep Redis busy while node computes the next fire times. */
const IN_FLIGHT = 128;
/** Routines whose BullMQ writes are done before their fingerprints are recorded, in one fenced write. */
const RECORD_CHUNK = 1_000;
/** How long a routine left for later whose write failed waits before it is tried again. */
const LATER_RETRY_MS = 60_000;

export interface ReconcileReport {
  /** Written to BullMQ. */
  upserted: string[];
  /** Left for later: their first slot is beyond the schedule horizon. */
  later: string[];
  removed: string[];
  unchanged: number;
}

/**
 * Leader only: keeps the timing sources on the fires queue of every routine that should fire —
 * a Job Scheduler for cron/interval (one per trigger of a `triggers` list: `<name>`, `<name>#1`, …),
 * a delayed job for once — and none for the rest. Two schedulers of one routine firing the same
 * instant are two fires of one slot: the slot claim lets one through. A schedule it writes whose
 * routine is armable and fires within a minute also gets a fire that arms its first slots. Diff-based:
 * it compares against the fingerprints it wrote last time (a hash in Redis), so a restart with
 * nothing changed writes nothing to BullMQ. A routine whose first slot is beyond the schedule horizon
 * gets its Job Schedulers that long before the slot (`LaterSchedules`), not when it is written.
 */
@Injectable()
export class Reconciler {
  /** The change count this leadership has reconciled up to; undefined before its first pass. */
  private seen: number | undefined;
  private readonly later: LaterSchedules;
  private readonly written: WrittenSchedules;
  private readonly horizonMs: number;

  constructor(
    private readonly conns: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly routines: RoutineStore,
    private readonly index: RoutineIndex,
    private readonly fires: FiresQueue,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly log: Logger,
    @Optional() @Inject(SCHEDULER_OPTIONS) opts?: SchedulerOptions,
  ) {
    this.later = new LaterSchedules(conns.command, keys);
    this.written = new WrittenSchedules(conns.command, keys);
    this.horizonMs = (opts ?? DEFAULT_SCHEDULER_OPTIONS).scheduleHorizonMs;
  }

  get writtenKey(): string {
    return this.written.key;
  }

  /** Reads every routine and its state (a full pass: the reconcile and the watchdog's rebuild share it). */
  async snapshot(): Promise<RoutineSnapshot> {
    const records = await this.routines.list({ ordered: false });
    return { records, states: await this.routines.getStates(records.map((r) => r.def.name)) };
  }

  /**
   * Reconciles every routine (a full pass). Pass `snap` when it was read for the watchdog's rebuild
   * too; the change count is recorded as covered once done.
   */
  async reconcileAll(lead: Leadership, isCurrent: () => boolean, snap?: RoutineSnapshot): Promise<ReconcileReport> {
    const seq = await this.index.seq();
    const { records, states } = snap ?? (await this.snapshot());
    const written = Object.fromEntries(await hscanAll(this.conns.command, this.writtenKey));
    const report: ReconcileReport = { upserted: [], later: [], removed: [], unchanged: 0 };
    const desired = new Map<string, RoutineRecord>();
    for (const rec of records) {
      if (firesOnSchedule(rec.def, states.get(rec.def.name)!)) desired.set(rec.def.name, rec);
    }
    const toWrite: { rec: RoutineRecord; fingerprint: string }[] = [];
    for (const rec of desired.values()) {
      const fingerprint = routineFingerprint(rec.def);
      if (written[rec.def.name] !== fingerprint) toWrite.push({ rec, fingerprint });
    }
    report.unchanged = desired.size - toWrite.length;
    const { direct, later } = splitLater(toWrite, written, this.clock.now(), this.horizonMs);
    for (let i = 0; i < later.length; i += RECORD_CHUNK) {
      const chunk = later.slice(i, i + RECORD_CHUNK);
      this.assertCurrent(isCurrent, chunk[0]!.rec.def.name);
      await this.later.put(
        lead.token,
        chunk.map((l) => [l.rec.def.name, l.at]),
      );
      await this.written.record(
        lead.token,
        chunk.map((l) => [l.rec.def.name, l.fingerprint]),
      );
    }
    await this.writeAll(direct, written, lead, isCurrent);
    report.upserted = direct.map(({ rec }) => rec.def.name);
    report.later = later.map(({ rec }) => rec.def.name);
    const toRemove = Object.keys(written).filter((name) => !desired.has(name));
    for (let i = 0; i < toRemove.length; i += RECORD_CHUNK) {
      const chunk = toRemove.slice(i, i + RECORD_CHUNK);
      await withConcurrency(chunk, IN_FLIGHT, (name) => this.removeTiming(name, written[name]!, isCurrent));
      await this.later.put(
        lead.token,
        chunk.map((name) => [name, undefined]),
      );
      await this.written.record(
        lead.token,
        chunk.map((name) => [name, '']),
      );
    }
    report.removed = toRemove;
    // A stale leader can slip one BullMQ write in before its fenced bookkeeping is refused;
    // such an orphan is in BullMQ's scheduler index but in neither `desired` nor `written`.
    // So can a scheduler of a trigger since removed from its routine's list.
    for (const id of await zscanMembers(this.conns.command, this.fires.keys.repeat!)) {
      const name = routineOfScheduler(id);
      const def = desired.get(name)?.def;
      if (name in written && !def) continue;
      if (def && [...Array(def.triggers?.length ?? 1).keys()].some((i) => schedulerId(name, i) === id)) continue;
      this.assertCurrent(isCurrent, name);
      await this.fires.removeJobScheduler(id);
      report.removed.push(id);
    }
    if (report.upserted.length || report.later.length || report.removed.length) {
      this.log.info(
        {
          upserted: report.upserted.length,
          later: report.later.length,
          removed: report.removed.length,
          unchanged: report.unchanged,
        },
        'reconciled schedules',
      );
    }
    await this.covered(lead, seq);
    return report;
  }

  /**
   * Writes the timing sources of `toWrite` with bounded parallelism (100k first-time upserts one by
   * one would take minutes of round trips); each chunk's fingerprints are recorded in one fenced
   * write once its BullMQ writes are done. The writes the lanes start in one tick (each after a reply
   * of the same read) leave together. With `failed`, every one of them was left for later, and a
   * routine whose write fails is added there instead of stopping the others.
   */
  private async writeAll(
    toWrite: { rec: RoutineRecord; fingerprint: string }[],
    written: Record<string, string>,
    lead: Leadership,
    isCurrent: () => boolean,
    failed?: [name: string, err: unknown][],
  ): Promise<void> {
    const later = failed !== undefined;
    await writeInChunks(toWrite, {
      inFlight: IN_FLIGHT,
      chunk: RECORD_CHUNK,
      write: async ({ rec }) => {
        writeTogether(this.fires.redis);
        await this.writeTiming(rec, written[rec.def.name], lead, isCurrent, later, later).catch((err: unknown) => {
          if (!failed || err instanceof StaleLeaderError) throw err;
          failed.push([rec.def.name, err]);
        });
      },
      record: (chunk) =>
        this.written.record(
          lead.token,
          chunk.map((w) => [w.rec.def.name, w.fingerprint]),
        ),
    });
  }

  /**
   * Reconciles the routines changed since the last pass of this leadership (the change log), and
   * nothing at all when the change count has not moved. Answers false when the log no longer
   * reaches back that far (more changes than it keeps): the caller makes a full pass.
   */
  async reconcileChanged(lead: Leadership, isCurrent: () => boolean): Promise<boolean> {
    if (this.seen === undefined) return false;
    const { seq, names } = await this.index.changedSince(this.seen);
    if (names === undefined) return false;
    if (names.length === 0) return true;
    const pace = pacer();
    for (const name of names) {
      await pace();
      await this.reconcileOne(name, lead, isCurrent);
    }
    await this.covered(lead, seq);
    return true;
  }

  /**
   * What a new leader needs to reconcile: nothing when the last complete reconcile covered the
   * change count now and the watchdog's index holds every routine; the changes since when the log
   * still has them; else everything ('full', which also rebuilds the index).
   */
  async onElection(lead: Leadership, isCurrent: () => boolean): Promise<'none' | 'changes' | 'full'> {
    this.seen = undefined;
    const [seq, covered, indexed, routines] = await Promise.all([
      this.index.seq(),
      this.index.reconciledSeq(),
      this.index.size(),
      this.conns.command.hlen(this.keys.routines()),
    ]);
    if (covered === undefined || indexed !== routines || covered > seq) return 'full';
    this.seen = covered;
    if (covered === seq) return 'none';
    return (await this.reconcileChanged(lead, isCurrent)) ? 'changes' : 'full';
  }

  /** Records that every change up to `seq` is reconciled (fenced; written only when it moved). */
  private async covered(lead: Leadership, seq: number): Promise<void> {
    const before = this.seen;
    this.seen = Math.max(seq, before ?? 0);
    if (before !== this.seen || (await this.index.reconciledSeq()) !== this.seen)
      await this.index.markReconciled(lead.token, this.seen);
  }

  /**
   * Reconciles one routine (after a change notification); `force` writes its schedules even when
   * its fingerprint is what was written. Answers whether the routine fires on its schedule.
   */
  async reconcileOne(name: string, lead: Leadership, isCurrent: () => boolean, force = false): Promise<boolean> {
    const rec = await this.routines.get(name);
    const state = await this.routines.getState(name);
    const written = (await this.conns.command.hget(this.writtenKey, name)) ?? undefined;
    const wanted = rec !== undefined && firesOnSchedule(rec.def, state);
    if (wanted && (force || written !== routineFingerprint(rec.def)))
      await this.write(rec, written, lead, isCurrent, force);
    else if (!wanted && written) await this.remove(name, written, lead, isCurrent);
    return wanted;
  }

  /**
   * Writes the Job Schedulers of the routines left for later whose time has come (at most `limit`,
   * the earliest first, as a full reconcile writes them); answers their names. Each gets what it is
   * now: a routine changed meanwhile its current schedule, one that no longer fires none.
   */
  async writeDue(lead: Leadership, isCurrent: () => boolean, limit = 1_000): Promise<string[]> {
    const names = await this.later.due(this.clock.now(), limit);
    if (names.length === 0) return [];
    const [records, states, fingerprints] = await Promise.all([
      this.routines.getMany(names),
      this.routines.getStates(names),
      this.conns.command.hmget(this.writtenKey, ...names),
    ]);
    const written: Record<string, string> = {};
    const toWrite: { rec: RoutineRecord; fingerprint: string }[] = [];
    const stopped: string[] = [];
    names.forEach((name, i) => {
      if (fingerprints[i]) written[name] = fingerprints[i]!;
      const rec = records.get(name);
      if (rec && firesOnSchedule(rec.def, states.get(name)!))
        toWrite.push({ rec, fingerprint: routineFingerprint(rec.def) });
      else stopped.push(name);
    });
    const failed: [string, unknown][] = [];
    await this.writeAll(toWrite, written, lead, isCurrent, failed);
    if (failed.length) {
      // Tried again a minute on, behind the routines due meanwhile; a slot passed in between is the watchdog's.
      this.log.warn(
        { routines: failed.map(([n]) => n), err: failed[0]![1] },
        'could not write schedules left for later',
      );
      const retryAt = this.clock.now() + LATER_RETRY_MS;
      await this.later.put(
        lead.token,
        failed.map(([name]) => [name, retryAt]),
      );
    }
    for (const name of stopped)
      if (!(await this.reconcileOne(name, lead, isCurrent))) await this.later.put(lead.token, [[name, undefined]]);
    return names;
  }

  private async write(
    rec: RoutineRecord,
    previous: string | undefined,
    lead: Leadership,
    isCurrent: () => boolean,
    force = false,
  ): Promise<void> {
    await this.writeTiming(rec, previous, lead, isCurrent, force);
    await this.written.record(lead.token, [[rec.def.name, routineFingerprint(rec.def)]]);
  }

  /**
   * Puts the routine's timing sources on the fires queue (its fingerprint is recorded by the
   * caller): only the schedulers whose trigger changed (all with `force`), and removes those of
   * triggers no longer listed. A routine whose first slot is beyond the horizon is left for later
   * instead, with none of its schedulers in BullMQ.
   */
  private async writeTiming(
    rec: RoutineRecord,
    previous: string | undefined,
    lead: Leadership,
    isCurrent: () => boolean,
    force = false,
    knownLater = false,
  ): Promise<void> {
    const { def } = rec;
    this.assertCurrent(isCurrent, def.name);
    const t = def.trigger;
    if (previous && previous.startsWith('once|') && t?.kind !== 'once')
      await removeOnce(this.fires, def.name, previous);
    // Left for later, none of its schedulers is in BullMQ: every trigger is new there.
    const wasLater = knownLater || (previous !== undefined && (await this.later.has(def.name)));
    const before = previous && !previous.startsWith('once|') && !wasLater ? schedulerFingerprints(previous) : [];
    const timed: Trigger[] = def.triggers ?? (t && t.kind !== 'once' && t.kind !== 'manual' ? [t] : []);
    const now = schedulerFingerprints(routineFingerprint(def));
    const endMs = slotBounds(def)?.endMs;
    if (t?.kind !== 'once' && endMs !== undefined && endMs < this.clock.now()) {
      // Ended: BullMQ would leave an older Job Scheduler in place. Slots still owed before the end
      // are the watchdog's (its expected slot is overdue), which dispatches them.
      for (let i = 0; i < before.length; i++) await this.fires.removeJobScheduler(schedulerId(def.name, i));
      if (wasLater) await this.later.put(lead.token, [[def.name, undefined]]);
      return;
    }
    const writeAt = writeSchedulesAt(def, this.clock.now(), this.horizonMs);
    if (writeAt !== undefined) {
      // The fenced entry first: a stale leader is refused before it takes anything out of BullMQ.
      await this.later.put(lead.token, [[def.name, writeAt]]);
      for (let i = 0; i < before.length; i++) await this.fires.removeJobScheduler(schedulerId(def.name, i));
      return;
    }
    for (let i = timed.length; i < before.length; i++) await this.fires.removeJobScheduler(schedulerId(def.name, i));
    let first: number | undefined;
    for (let i = 0; i < timed.length; i++) {
      if (!force && before[i] === now[i]) continue;
      const slot = await upsertScheduler(this.fires, this.clock.now(), def, i, timed[i]!);
      if (slot !== undefined) first = Math.min(slot, first ?? slot);
    }
    const at = this.clock.now();
    if (first !== undefined && armsOnWrite(def, first, at)) {
      // Its first slot is near: armed now by any scheduler replica, not by that slot's own fire.
      await this.fires.add('fire', { routine: def.name }, { ...FIRE_JOB_OPTS, jobId: armFireJobId(def.name, at) });
    }
    if (t?.kind === 'once') {
      if (previous?.startsWith('once|')) await removeOnce(this.fires, def.name, previous);
      const at = Date.parse(t.at);
      await this.fires.add(
        'fire',
        { routine: def.name },
        { ...FIRE_JOB_OPTS, jobId: onceFireJobId(def.name, at), delay: Math.max(0, at - this.clock.now()) },
      );
    }
    // Only now that BullMQ has them: a failed write above leaves the routine for later, to be tried again.
    if (wasLater) await this.later.put(lead.token, [[def.name, undefined]]);
  }

  private async remove(name: string, previous: string, lead: Leadership, isCurrent: () => boolean): Promise<void> {
    await this.removeTiming(name, previous, isCurrent);
    await this.later.put(lead.token, [[name, undefined]]);
    await this.written.record(lead.token, [[name, '']]);
  }

  private async removeTiming(name: string, previous: string, isCurrent: () => boolean): Promise<void> {
    this.assertCurrent(isCurrent, name);
    if (previous.startsWith('once|')) await removeOnce(this.fires, name, previous);
    else {
      const count = schedulerFingerprints(previous).length;
      for (let i = 0; i < count; i++) await this.fires.removeJobScheduler(schedulerId(name, i));
    }
  }

  private assertCurrent(isCurrent: () => boolean, name: string): void {
    if (!isCurrent()) throw new StaleLeaderError(`the schedule of routine "${name}"`);
  }
}
