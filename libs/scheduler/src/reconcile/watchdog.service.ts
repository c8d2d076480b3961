import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { expectedSlot, overdueSlot, pauseExpired, ROUTINE_STATUSES, RoutineArchivedError } from '@drover/core';
import { LOGGER } from '@drover/logger';
import { DroverMetrics } from '@drover/metrics';
import { Clock } from '@drover/redis';
import { BullQueues, pacer, requestRepair, RoutineStore } from '@drover/store';
import { Disarmer } from '../fires/disarmer';
import type { Leadership } from '../leadership/leader-elector';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';

/**
 * The leader's periodic check of stored state, so that nothing depends on a fire or a change
 * message arriving: routines whose pause ended resume; overdue routines (a lost fire, downtime) get a repair fire, which any
 * scheduler replica dispatches (never on the leader's own serial path, where a slow condition
 * check would hold up everything else); runs armed for an older version of their routine, or for
 * a deleted one, are withdrawn.
 */
@Injectable()
export class Watchdog {
  /**
   * Each routine's expected slot, kept until its version or cursor moves: computing it (a cron
   * in a time zone) costs ~40 µs, which at 100k routines every pass blocked the scheduler for seconds.
   */
  private readonly expected = new Map<string, { key: string; slot: number | undefined }>();

  constructor(
    private readonly routines: RoutineStore,
    private readonly disarmer: Disarmer,
    private readonly bull: BullQueues,
    private readonly clock: Clock,
    private readonly metrics: DroverMetrics,
    @Inject(SCHEDULER_OPTIONS) private readonly opts: SchedulerOptions,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /**
   * One pass; returns the routines it asked to repair. Writes are fenced by `lead` or, where BullMQ
   * writes, preceded by `isCurrent`.
   */
  async pass(lead: Leadership, isCurrent: () => boolean): Promise<string[]> {
    const records = await this.routines.list();
    const states = await this.routines.getStates(records.map((r) => r.def.name));
    const now = this.clock.now();
    const repaired: string[] = [];
    const seen = new Set<string>();
    const pace = pacer();
    for (const rec of records) {
      await pace();
      const name = rec.def.name;
      const state = states.get(name)!;
      seen.add(name);
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
        continue;
      }
      const stale = state.armed.filter((e) => e.version !== rec.version);
      if (stale.length && isCurrent()) {
        await this.disarmer.disarm(name, stale, { refire: true, why: 'armed for an older version' });
      }
      const due = overdueSlot(rec.def, state, rec.createdAt, now, this.opts.watchdogToleranceMs, () => {
        const key = `${rec.version}|${rec.createdAt}|${state.lastSlot}|${state.since}`;
        const kept = this.expected.get(name);
        if (kept?.key === key) return kept.slot;
        const slot = expectedSlot(rec.def, state, rec.createdAt);
        this.expected.set(name, { key, slot });
        return slot;
      });
      if (due === undefined || !isCurrent()) continue;
      this.metrics.watchdogRepairs.inc();
      await requestRepair(this.bull, name, due);
      repaired.push(name);
      this.log.warn(
        { routine: name, overdueSince: new Date(due).toISOString() },
        'watchdog: routine is overdue; asked the schedulers to dispatch it',
      );
    }
    for (const name of this.expected.keys()) if (!seen.has(name)) this.expected.delete(name);
    // The leader's routine gauge, from the records this pass read (one read of every routine, not two).
    const counts = new Map<string, number>(ROUTINE_STATUSES.map((s) => [s, 0]));
    for (const rec of records) counts.set(rec.def.status, (counts.get(rec.def.status) ?? 0) + 1);
    for (const [status, n] of counts) this.metrics.routines.set({ status }, n);
    for (const [name, entries] of await this.routines.pendingDisarms()) {
      if (!isCurrent()) break;
      await this.disarmer.disarm(name, entries, { refire: false, why: 'the routine was deleted' });
      await this.routines.clearPendingDisarms(name);
    }
    return repaired;
  }
}
