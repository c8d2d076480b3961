import { Inject, Injectable } from '@nestjs/common';
import { RoutineNotFoundError, type Random, type RoutineRecord } from '@drover/core';
import { RANDOM } from '@drover/platform';
import { Clock } from '@drover/redis';
import { ApiEvents, CandidateProbe, clearOverrides, RoutineStore, RunStore, triggerRoutine } from '@drover/store';
import { isoOf } from '../http/api-time';
import { ProblemError } from '../http/problem';
import type { Principal } from '../auth/principal';

/** The api waits this long for a scheduler past the provider's own deadline (capped like the scheduler's). */
const PROBE_MARGIN_MS = 2_000;
const PROBE_TIMEOUT_CAP_MS = 30_000;
/** Retry-After (s) of a dry run no scheduler answered: a scheduler restarting is back in seconds. */
const RETRY_AFTER_S = 5;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A selector routine's operator overrides (a run for a named candidate key, served before the
 * automatic candidates) and the dry run of its provider's answer. Overrides are runs with source
 * `manual` and a key; clearing cancels only those that have not started, never the runs an
 * automatic tick chose. The dry run is asked of a scheduler over Redis: the providers are code
 * that only scheduler processes load.
 */
@Injectable()
export class RoutineOverrides {
  constructor(
    private readonly routines: RoutineStore,
    private readonly runs: RunStore,
    private readonly events: ApiEvents,
    private readonly probe: CandidateProbe,
    private readonly clock: Clock,
    @Inject(RANDOM) private readonly random: Random,
  ) {}

  /** 404 for an unknown routine, 409 for one that is not a selector. */
  private async selector(name: string): Promise<RoutineRecord> {
    const rec = await this.routines.get(name);
    if (!rec) throw new RoutineNotFoundError(name);
    if (!rec.def.selector) {
      throw new ProblemError(409, `routine "${name}" is not a selector routine: it has no candidates or overrides`);
    }
    return rec;
  }

  async add(name: string, key: string, who: Principal): Promise<string> {
    const { id } = await triggerRoutine({ routines: this.routines, runs: this.runs }, name, {
      now: this.clock.now(),
      random: this.random,
      by: who.name,
      key,
    });
    await this.publish('override', name, { runId: id, key });
    return id;
  }

  async list(name: string) {
    await this.selector(name);
    const open = await this.runs.openRunsOfRoutine(name, { readOnly: true });
    const items = open
      .filter((r) => r.source === 'manual' && r.key !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .map((r) => ({
        key: r.key!,
        runId: r.id,
        status: r.status,
        createdAt: isoOf(r.createdAt),
        createdBy: r.createdBy ?? null,
      }));
    return { items };
  }

  async clear(name: string): Promise<string[]> {
    await this.selector(name);
    const cleared = await clearOverrides({ runs: this.runs }, name);
    if (cleared.length > 0) await this.publish('overrides-cleared', name, { runIds: cleared });
    return cleared;
  }

  async candidates(name: string) {
    const rec = await this.selector(name);
    const waitMs = Math.min(rec.def.conditionTimeoutMs, PROBE_TIMEOUT_CAP_MS) + PROBE_MARGIN_MS;
    const res = await this.probe.ask(name, this.probeId(), waitMs);
    if (res.kind !== 'answered') {
      const detail =
        res.kind === 'nobody'
          ? 'no scheduler answered: the candidate provider runs in a scheduler process, and none is listening'
          : `no scheduler answered within ${waitMs} ms: the candidate provider did not finish in time`;
      throw new ProblemError(503, detail, undefined, { 'Retry-After': String(RETRY_AFTER_S) });
    }
    const r = res.ranking;
    return {
      routine: r.routine,
      at: isoOf(r.at),
      provider: r.provider,
      maxPerTick: r.maxPerTick,
      depthWeight: r.depthWeight,
      error: r.error ?? null,
      items: r.ranked.map(({ rank, candidate: c, weightedStalenessSec, verdict }) => ({
        rank,
        key: c.key,
        band: c.band,
        stalenessSec: c.stalenessSec,
        depth: c.depth ?? null,
        emphasis: c.emphasis ?? null,
        disabled: c.disabled === true,
        weightedStalenessSec,
        verdict,
      })),
    };
  }

  private probeId(): string {
    return Array.from({ length: 24 }, () => ID_ALPHABET[Math.floor(this.random() * ID_ALPHABET.length)]).join('');
  }

  private publish(action: string, name: string, data: Record<string, unknown>): Promise<void> {
    return this.events.publish({ kind: 'routine', action, id: name, at: isoOf(this.clock.now()), data });
  }
}
