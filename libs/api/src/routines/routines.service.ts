import { Inject, Injectable } from '@nestjs/common';
import {
  InvalidRoutineError,
  pauseFromRequest,
  parseIsoInstant,
  RoutineNotFoundError,
  RoutineVersionConflictError,
  validateRoutine,
  type Random,
  type Routine,
  type RoutineRecord,
} from '@drover/core';
import { RANDOM } from '@drover/platform';
import { Clock } from '@drover/redis';
import { QueueRegistry, RoutineStore, RunStore, triggerRoutine } from '@drover/store';
import { ApiEvents } from '@drover/store';
import { isoOf } from '../http/api-time';
import { ProblemError } from '../http/problem';
import { ApiAuth } from '../auth/api-auth.service';
import type { Principal } from '../auth/principal';
import { applyMergePatch } from './merge-patch';
import { versionToWrite, type IfMatch } from './request-headers';
import { routineView, type RoutineAnswer } from './routine-view';

/** What a write did, and the routine as it is now. */
export interface WriteOutcome {
  outcome: 'created' | 'updated' | 'unchanged';
  routine: RoutineAnswer;
}

/**
 * The routines API's writes and single-routine reads over the stores: validation by core
 * (errors name the field), compare-and-set on the version for If-Match, who did it recorded on
 * the routine, and a `routine` event for consoles after each change.
 */
@Injectable()
export class RoutinesService {
  constructor(
    private readonly routines: RoutineStore,
    private readonly runs: RunStore,
    private readonly registry: QueueRegistry,
    private readonly events: ApiEvents,
    private readonly clock: Clock,
    private readonly auth: ApiAuth,
    @Inject(RANDOM) private readonly random: Random,
  ) {}

  async require(name: string): Promise<RoutineRecord> {
    const rec = await this.routines.get(name);
    if (!rec) throw new RoutineNotFoundError(name);
    return rec;
  }

  /** The routine's answer: definition, bookkeeping, state, next fire and newest run. */
  async view(name: string, rec?: RoutineRecord): Promise<RoutineAnswer> {
    const { record, state } = rec
      ? { record: rec, state: await this.routines.getState(name) }
      : await this.routines.getWithState(name);
    if (!record) throw new RoutineNotFoundError(name);
    const [last] = await this.runs.listByRoutine(name, { limit: 1 });
    return routineView(record, state, last, this.clock.now());
  }

  /** Core's validation of a definition against the defined queues; InvalidRoutineError names each bad field. */
  private async validate(raw: unknown): Promise<Routine> {
    const queues = (await this.registry.list()).map((q) => q.def.name);
    const res = validateRoutine(raw, queues);
    if (!res.ok) throw new InvalidRoutineError(res.errors);
    return res.routine;
  }

  /**
   * 403 unless `who` may write this: a `system` routine — as stored (`before`) or as it would be
   * (`after`) — is changed only by admins. Callers write conditionally on the version
   * `before` was read at, so the routine cannot become system between this check and the write.
   */
  private requireSystemRights(who: Principal, name: string, before?: Routine, after?: Routine): void {
    if (before?.system) this.auth.require(who, 'admin', `changing system routine "${name}"`);
    if (after?.system) this.auth.require(who, 'admin', `making "${name}" a system routine`);
  }

  async create(raw: Record<string, unknown>, who: Principal): Promise<WriteOutcome> {
    const def = await this.validate(raw);
    this.requireSystemRights(who, def.name, undefined, def);
    if (await this.routines.get(def.name)) {
      throw new ProblemError(409, `routine "${def.name}" exists; change it with PUT or PATCH /routines/${def.name}`);
    }
    try {
      await this.routines.upsert(def, 'api', this.clock.now(), { ifVersion: 0, by: who.name });
    } catch (err) {
      if (err instanceof RoutineVersionConflictError) {
        throw new ProblemError(409, `routine "${def.name}" was created meanwhile by another request`);
      }
      throw err;
    }
    return this.written(def.name, 'created');
  }

  /**
   * PUT: creates or replaces; the body's name, if any, must be the path's. Without `system` in
   * the request (`systemGiven` false) the stored value stays: only an explicit `system: false`
   * (by an admin) clears it. Likewise an archived routine stays archived unless `status` is sent
   * (`statusGiven`): an edit does not bring it back to life.
   */
  async put(
    name: string,
    raw: Record<string, unknown>,
    ifMatch: IfMatch | undefined,
    who: Principal,
    systemGiven: boolean,
    statusGiven = true,
  ): Promise<WriteOutcome> {
    this.sameName(name, raw.name);
    const rec = await this.routines.get(name);
    this.requireSystemRights(who, name, rec?.def);
    const keepSystem = !systemGiven && rec?.def.system === true;
    const keepArchived = !statusGiven && rec?.def.status === 'archived';
    const def = await this.validate({
      ...raw,
      name,
      ...(keepSystem && { system: true }),
      ...(keepArchived && { status: 'archived' }),
    });
    this.requireSystemRights(who, name, undefined, def);
    const ifVersion = versionToWrite(name, ifMatch, rec?.version ?? 0);
    const outcome = await this.routines.upsert(def, 'api', this.clock.now(), { ifVersion, by: who.name });
    return this.written(name, outcome);
  }

  /** PATCH: an RFC 7396 merge patch on the stored definition, then core's full validation. */
  async patch(
    name: string,
    patch: Record<string, unknown>,
    ifMatch: IfMatch | undefined,
    who: Principal,
  ): Promise<WriteOutcome> {
    this.sameName(name, patch.name);
    const rec = await this.require(name);
    this.requireSystemRights(who, name, rec.def);
    const merged = applyMergePatch(rec.def, patch) as Record<string, unknown>;
    const def = await this.validate({ ...merged, name });
    this.requireSystemRights(who, name, undefined, def);
    // Without If-Match the patch still applies to the version it was computed from.
    const ifVersion = versionToWrite(name, ifMatch, rec.version);
    const outcome = await this.routines.upsert(def, 'api', this.clock.now(), { ifVersion, by: who.name });
    return this.written(name, outcome);
  }

  private sameName(path: string, body: unknown): void {
    if (body === undefined || body === null || body === path) return;
    const message = `must be "${path}" (the name in the path) or omitted; a routine cannot be renamed`;
    throw new ProblemError(400, `invalid request: body.name ${message}`, [{ path: 'body.name', message }]);
  }

  private async written(name: string, outcome: WriteOutcome['outcome']): Promise<WriteOutcome> {
    const routine = await this.view(name);
    if (outcome !== 'unchanged') await this.publish(outcome, name, { version: routine.version });
    return { outcome, routine };
  }

  /** Deletes; its armed runs are withdrawn (the store hands them to the leader; workers refuse them). */
  async remove(name: string, ifMatch: IfMatch | undefined, who: Principal): Promise<void> {
    const rec = await this.require(name);
    if (rec.def.system) this.auth.require(who, 'admin', `deleting system routine "${name}"`);
    const ifVersion = versionToWrite(name, ifMatch, rec.version);
    if (!(await this.routines.remove(name, { ifVersion }))) throw new RoutineNotFoundError(name);
    await this.publish('removed', name);
  }

  async pause(name: string, body: { note?: string; until?: string }, who: Principal): Promise<RoutineAnswer> {
    const now = this.clock.now();
    const until = body.until === undefined ? undefined : parseIsoInstant(body.until);
    const res = pauseFromRequest({ note: body.note, until }, now, who.name);
    if (!res.ok)
      throw new ProblemError(400, `invalid request: body.${res.field} ${res.error}`, [
        { path: `body.${res.field}`, message: res.error },
      ]);
    const rec = await this.routines.pause(name, res.pause, now, { by: who.name });
    await this.publish('paused', name, { ...(res.pause.until && { until: isoOf(res.pause.until) }) });
    return this.view(name, rec);
  }

  async resume(name: string, who: Principal): Promise<RoutineAnswer> {
    const rec = await this.routines.resume(name, this.clock.now(), { by: who.name });
    await this.publish('resumed', name);
    return this.view(name, rec);
  }

  /** Re-enables a routine its launcher disabled; a `routine` event only when it was disabled. */
  async enable(name: string): Promise<RoutineAnswer> {
    if (await this.routines.enable(name)) await this.publish('enabled', name);
    return this.view(name);
  }

  /**
   * Archives (or unarchives) a routine; a repeat changes nothing and answers it as it is. Either
   * act on a `system` routine is an admin's: archiving stops it like a delete would.
   */
  async archive(name: string, act: 'archive' | 'unarchive', who: Principal): Promise<RoutineAnswer> {
    const before = await this.require(name);
    if (before.def.system)
      this.auth.require(who, 'admin', `${act === 'archive' ? 'archiving' : 'unarchiving'} system routine "${name}"`);
    const now = this.clock.now();
    // Conditional on the version checked above: the routine cannot become system meanwhile.
    const opts = { by: who.name, ifVersion: before.version };
    const rec = await (act === 'archive'
      ? this.routines.archive(name, now, opts)
      : this.routines.unarchive(name, now, opts));
    if (rec.version !== before.version) await this.publish(act === 'archive' ? 'archived' : 'unarchived', name);
    return this.view(name, rec);
  }

  /**
   * A manual run. Replacing the payload of a system routine needs an admin (it runs what the
   * routine would not); a plain trigger of one is an operator's, like a pause.
   */
  async trigger(name: string, payload: unknown, idempotencyKey: string | undefined, who: Principal): Promise<string> {
    if (payload !== undefined && (await this.require(name)).def.system) {
      this.auth.require(who, 'admin', `triggering system routine "${name}" with another payload`);
    }
    const { id, created } = await triggerRoutine({ routines: this.routines, runs: this.runs }, name, {
      now: this.clock.now(),
      random: this.random,
      by: who.name,
      ...(payload !== undefined && { payload }),
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    });
    if (created) await this.publish('triggered', name, { runId: id });
    return id;
  }

  private publish(action: string, name: string, data?: Record<string, unknown>): Promise<void> {
    return this.events.publish({
      kind: 'routine',
      action,
      id: name,
      at: isoOf(this.clock.now()),
      ...(data && { data }),
    });
  }
}
