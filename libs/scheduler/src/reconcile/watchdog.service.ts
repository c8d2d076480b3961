import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import {
  expectedSlot,
  firesOnSchedule,
  pauseExpired,
  countedStatus,
  ROUTINE_COUNT_STATUSES,
  RoutineArchivedError,
  type RoutineRecord,
} from '@drover/core';
import { LOGGER } from '@drover/logger';
import { DroverMetrics } from '@drover/metrics';
import { Clock } from '@drover/redis';
import {
  BullQueues,
  pacer,
  requestRepair,
  RoutineIndex,
  RoutineStore,
  type DueEntry,
  type RoutineState,
} from '@drover/store';
import { Disarmer } from '../fires/disarmer';
import type { Leadership } from '../leadership/leader-elector';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';

/** What a full pass read: every routine and its state. */
export interface RoutineSnapshot {
  records: RoutineRecord[];
  states: Map<string, RoutineState>;
}

/**
 * The leader's periodic check of stored state, so that nothing depends on a fire or a change
 * message arriving: routines whose pause ended resume; overdue routines (a lost fire, downtime) get a repair fire, which any
 * scheduler replica dispatches (never on the leader's own serial path, where a slow condition
 * check would hold up everything else); runs armed for an older version of their routine, or for
 * a deleted one, are withdrawn.
 *
 * A pass reads only the routines whose entry in the index (`RoutineIndex`) is due: those whose
 * expected slot is more than the tolerance ago, and those changed since the last look (entry 0).
 * With nothing overdue and nothing changed it reads one empty range, whatever the number of routines.
 */
@Injectable()
export class Watchdog {
  /**
   * Each routine's expected slot, kept until its version or cursor moves: computing it (a cron
   * in a time zone) costs ~40 µs, which a rebuild of 100k entries would pay again on every pass.
   */
  private readonly expected = new Map<string, { key: string; slot: number | undefined }>();

  constructor(
    private readonly routines: RoutineStore,
    private readonly index: RoutineIndex,
    private readonly disarmer: Disarmer,
    private readonly bull: BullQueues,
    private readonly clock: Clock,
    private readonly metrics: DroverMetrics,
    @Inject(SCHEDULER_OPTIONS) private readonly opts: SchedulerOptions,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /**
   * One pass over the due entries; returns the routines it asked to repair. Writes are fenced by
   * `lead` or, where BullMQ writes, preceded by `isCurrent`.
   */
  async pass(lead: Leadership, isCurrent: () => boolean): Promise<string[]> {
    const now = this.clock.now();
    const names = (await this.index.due(now - this.opts.watchdogToleranceMs)).map((e) => e.name);
    const records = await this.routines.getMany(names);
    const states = await this.routines.getStates(names);
    const repaired: string[] = [];
    const entries: DueEntry[] = [];
    const pace = pacer();
    for (const name of names) {
      await pace();
      const rec = records.get(name);
      const state = states.get(name)!;
      if (!rec) {
        entries.push({ name, at: undefined, from: state });
        continue;
      }
      if (rec.def.status === 'paused' && pauseExpired(rec.pause, now)) {
        // Archived since this pass read it: an archive is not undone by a pause's end.
        const resumed = await this.routines.resume(name, now, { token: lead.token }).catch((err: unknown) => {
          if (err instanceof RoutineArchivedError) return undefined;
          throw err;
        });
        if (resumed)
          this.log.info(
            { routine: name, until: new Date(rec.pause!.until!).toISOString() },
            'resumed: its pause ended',
          );
        continue; // the resume put its entry at 0: the next pass looks again
      }
      const stale = state.armed.filter((e) => e.version !== rec.version);
      if (stale.length && isCurrent()) {
        await this.disarmer.disarm(name, stale, { refire: true, why: 'armed for an older version' });
      }
      const at = this.lookAgainAt(rec, state);
      entries.push({ name, at, from: state });
      const overdue = rec.def.status !== 'paused' && at !== undefined && now - at > this.opts.watchdogToleranceMs;
      if (!overdue || !isCurrent()) continue;
      this.metrics.watchdogRepairs.inc();
      await requestRepair(this.bull, name, at);
      repaired.push(name);
      this.log.warn(
        { routine: name, overdueSince: new Date(at).toISOString() },
        'watchdog: routine is overdue; asked the schedulers to dispatch it',
      );
    }
    // An overdue routine keeps its (past) entry: the next pass asks again until a fire moves it.
    await this.index.put(lead.token, entries);
    for (const name of names) if (!records.has(name)) this.expected.delete(name);
    // The leader's routine gauge, from the counts every write keeps (no read of every routine).
    const counts = await this.index.counts();
    for (const s of ROUTINE_COUNT_STATUSES) this.metrics.routines.set({ status: s }, counts.get(s) ?? 0);
    for (const [name, entries] of await this.routines.pendingDisarms()) {
      if (!isCurrent()) break;
      await this.disarmer.disarm(name, entries, { refire: false, why: 'the routine was deleted' });
      await this.routines.clearPendingDisarms(name);
    }
    return repaired;
  }

  /**
   * A full pass (on election when the index may be incomplete, and periodically): every routine's
   * entry is set to what its state says, a missing one added, and one of a routine that no longer
   * exists removed; the counts per status are set from what was read. An entry whose routine
   * changed since the read (its version or cursor moved) keeps what that change wrote.
   */
  async rebuild(lead: Leadership, snap: RoutineSnapshot): Promise<void> {
    const entries: DueEntry[] = [];
    const counts = new Map<string, number>(ROUTINE_COUNT_STATUSES.map((s) => [s, 0]));
    const pace = pacer();
    for (const rec of snap.records) {
      await pace();
      const name = rec.def.name;
      const state = snap.states.get(name)!;
      const counted = countedStatus(rec.def.status, state.disabledReason);
      counts.set(counted, (counts.get(counted) ?? 0) + 1);
      entries.push({ name, at: this.lookAgainAt(rec, state), from: state });
    }
    const known = new Set(entries.map((e) => e.name));
    for (const name of await this.index.members()) {
      if (!known.has(name)) entries.push({ name, at: undefined, from: {} });
    }
    await this.index.put(lead.token, entries);
    await this.index.putCounts(lead.token, counts);
  }

  /**
   * When the watchdog should look at a routine next: its expected slot while it fires on its
   * schedule, the end of its pause, or never (undefined) until it changes. Entries are read up to
   * now − tolerance (a slot is lost only that late), so a pause's end is entered that much earlier.
   */
  private lookAgainAt(rec: RoutineRecord, state: RoutineState): number | undefined {
    if (rec.def.status === 'paused') {
      const until = rec.pause?.until;
      return until === undefined ? undefined : until - this.opts.watchdogToleranceMs;
    }
    if (!firesOnSchedule(rec.def, state)) return undefined;
    const key = `${rec.version}|${rec.createdAt}|${state.lastSlot}|${state.since}`;
    const kept = this.expected.get(rec.def.name);
    if (kept?.key === key) return kept.slot;
    const slot = expectedSlot(rec.def, state, rec.createdAt);
    this.expected.set(rec.def.name, { key, slot });
    return slot;
  }
}
