import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { firesOnSchedule, nextFire, slotBounds, type Routine, type RoutineRecord, type Trigger } from '@drover/core';
import { LOGGER } from '@drover/logger';
import {
  Clock,
  DroverKeys,
  RedisConnections,
  ScriptCode,
  StaleLeaderError,
  withDroverScripts,
  writeTogether,
} from '@drover/redis';
import {
  armFireJobId,
  FIRE_JOB_OPTS,
  fireOfJob,
  hscanAll,
  onceFireJobId,
  pacer,
  RoutineIndex,
  RoutineStore,
  zscanMembers,
} from '@drover/store';
import { armsOnWrite } from '../fires/arming';
import { FiresQueue } from '../fires/fires-queue.provider';
import {
  fireLagMs,
  routineFingerprint,
  routineOfScheduler,
  schedulerFingerprints,
  schedulerId,
} from '../fires/fire-job';
import type { Leadership } from '../leadership/leader-elector';
import type { RoutineSnapshot } from './watchdog.service';

/** BullMQ writes in flight at once: enough to keep Redis busy while node computes the next fire times. */
const IN_FLIGHT = 128;
/** Routines whose BullMQ writes are done before their fingerprints are recorded, in one fenced write. */
const RECORD_CHUNK = 1_000;

/** Runs `fn` over `items` with at most `limit` calls outstanding (a new one starts as soon as one ends). */
async function withConcurrency<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export interface ReconcileReport {
  upserted: string[];
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
 * nothing changed writes nothing to BullMQ.
 */
@Injectable()
export class Reconciler {
  /** The change count this leadership has reconciled up to; undefined before its first pass. */
  private seen: number | undefined;

  constructor(
    private readonly conns: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly routines: RoutineStore,
    private readonly index: RoutineIndex,
    private readonly fires: FiresQueue,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  get writtenKey(): string {
    return this.keys.schedulerDefs();
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
    const report: ReconcileReport = { upserted: [], removed: [], unchanged: 0 };
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
    await this.writeAll(toWrite, written, lead, isCurrent);
    report.upserted = toWrite.map(({ rec }) => rec.def.name);
    const toRemove = Object.keys(written).filter((name) => !desired.has(name));
    for (let i = 0; i < toRemove.length; i += RECORD_CHUNK) {
      const chunk = toRemove.slice(i, i + RECORD_CHUNK);
      await withConcurrency(chunk, IN_FLIGHT, (name) => this.removeTiming(name, written[name]!, isCurrent));
      await this.recordWritten(
        lead,
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
    if (report.upserted.length || report.removed.length) {
      this.log.info(
        { upserted: report.upserted.length, removed: report.removed.length, unchanged: report.unchanged },
        'reconciled schedules',
      );
    }
    await this.covered(lead, seq);
    return report;
  }

  /**
   * Writes the timing sources of `toWrite` with bounded parallelism (100k first-time upserts one by
   * one would take minutes of round trips). Each chunk's fingerprints are recorded, in one fenced
   * write, once every BullMQ write of that chunk is done, while the lanes go on with the next chunks
   * (waiting for a chunk's slowest write would leave Redis idle). The writes the lanes start in one
   * tick (each after a reply of the same read) leave together. After a failed write or a refused
   * record no lane starts another write or record, and the failure is what this throws.
   */
  private async writeAll(
    toWrite: { rec: RoutineRecord; fingerprint: string }[],
    written: Record<string, string>,
    lead: Leadership,
    isCurrent: () => boolean,
  ): Promise<void> {
    const left: number[] = [];
    for (let i = 0; i < toWrite.length; i += RECORD_CHUNK) left.push(Math.min(RECORD_CHUNK, toWrite.length - i));
    const recorded: Promise<void>[] = [];
    let failed = false;
    const order = toWrite.map((item, i) => ({ ...item, chunk: Math.floor(i / RECORD_CHUNK) }));
    const lanes = withConcurrency(order, IN_FLIGHT, async ({ rec, chunk }) => {
      if (failed) return;
      writeTogether(this.fires.redis);
      await this.writeTiming(rec, written[rec.def.name], isCurrent).catch((err: unknown) => {
        failed = true;
        throw err;
      });
      if (--left[chunk]! > 0 || failed) return;
      const entries = toWrite
        .slice(chunk * RECORD_CHUNK, (chunk + 1) * RECORD_CHUNK)
        .map((w): [string, string] => [w.rec.def.name, w.fingerprint]);
      const record = this.recordWritten(lead, entries);
      record.catch(() => (failed = true));
      recorded.push(record);
    });
    const failure = await lanes.then(
      () => undefined,
      (err: unknown) => ({ err }),
    );
    // Every record started is awaited; a stale leader's refusal is what the caller hears.
    const refused = (await Promise.allSettled(recorded)).find((o) => o.status === 'rejected');
    if (refused) throw refused.reason;
    if (failure) throw failure.err;
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

  /** Reconciles one routine (after a change notification). */
  async reconcileOne(name: string, lead: Leadership, isCurrent: () => boolean, force = false): Promise<void> {
    const rec = await this.routines.get(name);
    const state = await this.routines.getState(name);
    const written = (await this.conns.command.hget(this.writtenKey, name)) ?? undefined;
    const wanted = rec && firesOnSchedule(rec.def, state);
    if (wanted && (force || written !== routineFingerprint(rec.def)))
      await this.write(rec, written, lead, isCurrent, force);
    else if (!wanted && written) await this.remove(name, written, lead, isCurrent);
  }

  private async write(
    rec: RoutineRecord,
    previous: string | undefined,
    lead: Leadership,
    isCurrent: () => boolean,
    force = false,
  ): Promise<void> {
    await this.writeTiming(rec, previous, isCurrent, force);
    await this.recordWritten(lead, [[rec.def.name, routineFingerprint(rec.def)]]);
  }

  /**
   * Puts the routine's timing sources on the fires queue (its fingerprint is recorded by the
   * caller): only the schedulers whose trigger changed (all with `force`), and removes those of
   * triggers no longer listed.
   */
  private async writeTiming(
    rec: RoutineRecord,
    previous: string | undefined,
    isCurrent: () => boolean,
    force = false,
  ): Promise<void> {
    const { def } = rec;
    this.assertCurrent(isCurrent, def.name);
    const t = def.trigger;
    if (previous && previous.startsWith('once|') && t?.kind !== 'once') await this.removeOnce(def.name, previous);
    const before = previous && !previous.startsWith('once|') ? schedulerFingerprints(previous) : [];
    const timed: Trigger[] = def.triggers ?? (t && t.kind !== 'once' && t.kind !== 'manual' ? [t] : []);
    const now = schedulerFingerprints(routineFingerprint(def));
    const endMs = slotBounds(def)?.endMs;
    if (t?.kind !== 'once' && endMs !== undefined && endMs < this.clock.now()) {
      // Ended: BullMQ would leave an older Job Scheduler in place. Slots still owed before the end
      // are the watchdog's (its expected slot is overdue), which dispatches them.
      for (let i = 0; i < before.length; i++) await this.fires.removeJobScheduler(schedulerId(def.name, i));
      return;
    }
    for (let i = timed.length; i < before.length; i++) await this.fires.removeJobScheduler(schedulerId(def.name, i));
    let first: number | undefined;
    for (let i = 0; i < timed.length; i++) {
      if (!force && before[i] === now[i]) continue;
      const slot = await this.upsertScheduler(def, i, timed[i]!);
      if (slot !== undefined) first = Math.min(slot, first ?? slot);
    }
    const at = this.clock.now();
    if (first !== undefined && armsOnWrite(def, first, at)) {
      // Its first slot is near: armed now by any scheduler replica, not by that slot's own fire.
      await this.fires.add('fire', { routine: def.name }, { ...FIRE_JOB_OPTS, jobId: armFireJobId(def.name, at) });
    }
    if (t?.kind === 'once') {
      if (previous?.startsWith('once|')) await this.removeOnce(def.name, previous);
      const at = Date.parse(t.at);
      await this.fires.add(
        'fire',
        { routine: def.name },
        { ...FIRE_JOB_OPTS, jobId: onceFireJobId(def.name, at), delay: Math.max(0, at - this.clock.now()) },
      );
    }
  }

  /**
   * Upserts the Job Scheduler of the routine's trigger `index`; answers the slot of its first fire
   * (read from the job BullMQ made: computing it again would cost a cron search per routine).
   */
  private async upsertScheduler(def: Routine, index: number, t: Trigger): Promise<number | undefined> {
    // No options: the fires consumer applies them (see FIRE_JOB_OPTS); each byte is stored per routine.
    const template = { name: 'fire', data: { routine: def.name } };
    const id = schedulerId(def.name, index);
    // startAt/endAt: BullMQ starts and ends the Job Scheduler there (the dispatcher's catch-up
    // never sees a slot outside them either); once spent, the reconciler removes it.
    const bounds = slotBounds(def);
    const endDate = bounds?.endMs === undefined ? {} : { endDate: bounds.endMs + fireLagMs(def) + 1 };
    if (t.kind === 'cron') {
      const startDate = bounds?.startMs === undefined ? {} : { startDate: bounds.startMs };
      const job = await this.fires.upsertJobScheduler(
        id,
        { pattern: t.cron, tz: t.tz ?? 'UTC', ...startDate, ...endDate },
        template,
      );
      return fireOfJob(job?.id)?.slot;
    }
    if (t.kind === 'interval') {
      // BullMQ anchors `every` at the first iteration; starting it on a grid slot keeps the grid.
      const lagMs = fireLagMs(def);
      const from = Math.max(this.clock.now(), (bounds?.startMs ?? -Infinity) - 1);
      const startDate = nextFire(t, from)! + lagMs;
      const data = lagMs ? { routine: def.name, lagMs } : template.data;
      const job = await this.fires.upsertJobScheduler(
        id,
        { every: t.everyMs, startDate, ...endDate },
        { ...template, data },
      );
      return fireOfJob(job?.id, lagMs)?.slot;
    }
    return undefined;
  }

  private async remove(name: string, previous: string, lead: Leadership, isCurrent: () => boolean): Promise<void> {
    await this.removeTiming(name, previous, isCurrent);
    await this.recordWritten(lead, [[name, '']]);
  }

  private async removeTiming(name: string, previous: string, isCurrent: () => boolean): Promise<void> {
    this.assertCurrent(isCurrent, name);
    if (previous.startsWith('once|')) await this.removeOnce(name, previous);
    else {
      const count = schedulerFingerprints(previous).length;
      for (let i = 0; i < count; i++) await this.fires.removeJobScheduler(schedulerId(name, i));
    }
  }

  private async removeOnce(name: string, fingerprint: string): Promise<void> {
    const at = Number(fingerprint.split('|')[1]);
    const job = await this.fires.getJob(onceFireJobId(name, at));
    if (job && !(await job.isActive())) await job.remove().catch(() => undefined);
  }

  /** Records what was written for each routine ("" = nothing); refused, as a whole, for a stale leader. */
  private async recordWritten(lead: Leadership, entries: [name: string, fingerprint: string][]): Promise<void> {
    if (entries.length === 0) return;
    const res = await withDroverScripts(this.conns.command).fencedHset(
      this.keys.leader(),
      this.writtenKey,
      lead.token,
      ...entries.flat(),
    );
    if (res === ScriptCode.StaleToken) {
      const what = entries.length === 1 ? `routine "${entries[0]![0]}"` : `${entries.length} routines`;
      throw new StaleLeaderError(`the schedule of ${what}`);
    }
  }

  private assertCurrent(isCurrent: () => boolean, name: string): void {
    if (!isCurrent()) throw new StaleLeaderError(`the schedule of routine "${name}"`);
  }
}
