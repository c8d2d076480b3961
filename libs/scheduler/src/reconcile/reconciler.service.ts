import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { firesOnSchedule, nextFire } from '@drover/core';
import { LOGGER } from '@drover/logger';
import { Clock, DroverKeys, RedisConnections, ScriptCode, StaleLeaderError, withDroverScripts } from '@drover/redis';
import { FIRE_JOB_OPTS, onceFireJobId, RoutineStore, type RoutineRecord } from '@drover/store';
import { FiresQueue } from '../fires/fires-queue.provider';
import { fireLagMs, schedulerFingerprint } from '../fires/fire-job';
import type { Leadership } from '../leadership/leader-elector';

const WRITE_BATCH = 64;

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

export interface ReconcileReport {
  upserted: string[];
  removed: string[];
  unchanged: number;
}

/**
 * Leader only: keeps exactly one timing source on the fires queue per routine that should fire —
 * a Job Scheduler for cron/interval, a delayed job for once — and none for the rest. Diff-based:
 * it compares against the fingerprints it wrote last time (a hash in Redis), so a restart with
 * nothing changed writes nothing to BullMQ.
 */
@Injectable()
export class Reconciler {
  constructor(
    private readonly conns: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly routines: RoutineStore,
    private readonly fires: FiresQueue,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  get writtenKey(): string {
    return this.keys.core('scheduler-defs');
  }

  async reconcileAll(lead: Leadership, isCurrent: () => boolean): Promise<ReconcileReport> {
    const records = await this.routines.list();
    const states = await this.routines.getStates(records.map((r) => r.def.name));
    const written = await this.conns.command.hgetall(this.writtenKey);
    const report: ReconcileReport = { upserted: [], removed: [], unchanged: 0 };
    const desired = new Map<string, RoutineRecord>();
    for (const rec of records) {
      if (firesOnSchedule(rec.def, states.get(rec.def.name)!)) desired.set(rec.def.name, rec);
    }
    const toWrite = [...desired.values()].filter(
      (rec) => written[rec.def.name] !== schedulerFingerprint(rec.def.trigger, fireLagMs(rec.def)),
    );
    report.unchanged = desired.size - toWrite.length;
    // Bounded parallelism: 100k first-time upserts one by one would take minutes of round trips.
    await inBatches(toWrite, WRITE_BATCH, (rec) => this.write(rec, written[rec.def.name], lead, isCurrent));
    report.upserted = toWrite.map((rec) => rec.def.name);
    const toRemove = Object.keys(written).filter((name) => !desired.has(name));
    await inBatches(toRemove, WRITE_BATCH, (name) => this.remove(name, written[name]!, lead, isCurrent));
    report.removed = toRemove;
    // A stale leader can slip one BullMQ write in before its fenced bookkeeping is refused;
    // such an orphan is in BullMQ's scheduler index but in neither `desired` nor `written`.
    for (const name of await this.conns.command.zrange(this.fires.keys.repeat!, '0', '-1')) {
      if (desired.has(name) || name in written) continue;
      this.assertCurrent(isCurrent, name);
      await this.fires.removeJobScheduler(name);
      report.removed.push(name);
    }
    if (report.upserted.length || report.removed.length) {
      this.log.info(
        { upserted: report.upserted.length, removed: report.removed.length, unchanged: report.unchanged },
        'reconciled schedules',
      );
    }
    return report;
  }

  /** Reconciles one routine (after a change notification). */
  async reconcileOne(name: string, lead: Leadership, isCurrent: () => boolean, force = false): Promise<void> {
    const rec = await this.routines.get(name);
    const state = await this.routines.getState(name);
    const written = (await this.conns.command.hget(this.writtenKey, name)) ?? undefined;
    const wanted = rec && firesOnSchedule(rec.def, state);
    if (wanted && (force || written !== schedulerFingerprint(rec.def.trigger, fireLagMs(rec.def))))
      await this.write(rec, written, lead, isCurrent);
    else if (!wanted && written) await this.remove(name, written, lead, isCurrent);
  }

  private async write(
    rec: RoutineRecord,
    previous: string | undefined,
    lead: Leadership,
    isCurrent: () => boolean,
  ): Promise<void> {
    const { def } = rec;
    this.assertCurrent(isCurrent, def.name);
    if (previous && previous.startsWith('once|') && def.trigger.kind !== 'once')
      await this.removeOnce(def.name, previous);
    const template = { name: 'fire', data: { routine: def.name }, opts: FIRE_JOB_OPTS };
    const t = def.trigger;
    if (t.kind === 'cron') {
      await this.fires.upsertJobScheduler(def.name, { pattern: t.cron, tz: t.tz ?? 'UTC' }, template);
    } else if (t.kind === 'interval') {
      // BullMQ anchors `every` at the first iteration; starting it on a grid slot keeps the grid.
      const lagMs = fireLagMs(def);
      const startDate = nextFire(t, this.clock.now())! + lagMs;
      const data = lagMs ? { routine: def.name, lagMs } : template.data;
      await this.fires.upsertJobScheduler(def.name, { every: t.everyMs, startDate }, { ...template, data });
    } else if (t.kind === 'once') {
      if (previous?.startsWith('every|') || previous?.startsWith('cron|'))
        await this.fires.removeJobScheduler(def.name);
      if (previous?.startsWith('once|')) await this.removeOnce(def.name, previous);
      const at = Date.parse(t.at);
      await this.fires.add(
        'fire',
        { routine: def.name },
        { jobId: onceFireJobId(def.name, at), delay: Math.max(0, at - this.clock.now()) },
      );
    }
    await this.recordWritten(lead, def.name, schedulerFingerprint(t, fireLagMs(def)));
  }

  private async remove(name: string, previous: string, lead: Leadership, isCurrent: () => boolean): Promise<void> {
    this.assertCurrent(isCurrent, name);
    if (previous.startsWith('once|')) await this.removeOnce(name, previous);
    else await this.fires.removeJobScheduler(name);
    await this.recordWritten(lead, name, '');
  }

  private async removeOnce(name: string, fingerprint: string): Promise<void> {
    const at = Number(fingerprint.split('|')[1]);
    const job = await this.fires.getJob(onceFireJobId(name, at));
    if (job && !(await job.isActive())) await job.remove().catch(() => undefined);
  }

  private async recordWritten(lead: Leadership, name: string, fingerprint: string): Promise<void> {
    const res = await withDroverScripts(this.conns.command).fencedHset(
      this.keys.core('leader'),
      this.writtenKey,
      lead.token,
      name,
      fingerprint,
    );
    if (res === ScriptCode.StaleToken) throw new StaleLeaderError(`the schedule of routine "${name}"`);
  }

  private assertCurrent(isCurrent: () => boolean, name: string): void {
    if (!isCurrent()) throw new StaleLeaderError(`the schedule of routine "${name}"`);
  }
}
