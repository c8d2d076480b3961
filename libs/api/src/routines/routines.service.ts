import { Injectable } from '@nestjs/common';
import { pauseFromRequest, parseIsoInstant, secureRandomSource, type Routine } from '@drover/core';
import { InvalidRoutineError } from '@drover/client';
import { Clock } from '@drover/redis';
import {
  QueueRegistry,
  RoutineNotFoundError,
  RoutineStore,
  RoutineVersionConflictError,
  RunStore,
  triggerRoutine,
  validateRoutine,
  type RoutineRecord,
} from '@drover/store';
import { ApiEvents } from '../events/api-events';
import { isoOf } from '../http/api-time';
import { ProblemError } from '../http/problem';
import type { Principal } from '../auth/principal';
import { applyMergePatch } from './merge-patch';
import { routineView, type RoutineAnswer } from './routine-view';

/** Ids of manual runs (one source per process). */
const secureRandom = secureRandomSource();

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

  /** The version a write must find: If-Match's, `*` as "whatever exists now" (412 when none). */
  private async expected(name: string, ifMatch: number | '*' | undefined): Promise<number | undefined> {
    if (ifMatch !== '*') return ifMatch;
    const rec = await this.routines.get(name);
    if (!rec) throw new RoutineVersionConflictError(name, 1, 0);
    return rec.version;
  }

  async create(raw: Record<string, unknown>, who: Principal): Promise<WriteOutcome> {
    const def = await this.validate(raw);
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

  /** PUT: creates or replaces; the body's name, if any, must be the path's. */
  async put(
    name: string,
    raw: Record<string, unknown>,
    ifMatch: number | '*' | undefined,
    who: Principal,
  ): Promise<WriteOutcome> {
    this.sameName(name, raw.name);
    const def = await this.validate({ ...raw, name });
    const ifVersion = await this.expected(name, ifMatch);
    const outcome = await this.routines.upsert(def, 'api', this.clock.now(), { ifVersion, by: who.name });
    return this.written(name, outcome);
  }

  /** PATCH: an RFC 7396 merge patch on the stored definition, then core's full validation. */
  async patch(
    name: string,
    patch: Record<string, unknown>,
    ifMatch: number | '*' | undefined,
    who: Principal,
  ): Promise<WriteOutcome> {
    this.sameName(name, patch.name);
    const rec = await this.require(name);
    const merged = applyMergePatch(rec.def, patch) as Record<string, unknown>;
    const def = await this.validate({ ...merged, name });
    // Without If-Match the patch still applies to the version it was computed from.
    const ifVersion = ifMatch === undefined || ifMatch === '*' ? rec.version : ifMatch;
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
  async remove(name: string, ifMatch: number | '*' | undefined): Promise<void> {
    const ifVersion = await this.expected(name, ifMatch);
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

  async trigger(name: string, payload: unknown, idempotencyKey: string | undefined, who: Principal): Promise<string> {
    const { id, created } = await triggerRoutine({ routines: this.routines, runs: this.runs }, name, {
      now: this.clock.now(),
      random: secureRandom,
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
