import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { rankCandidates } from '@drover/core';
import { Clock } from '@drover/redis';
import { CandidateProbe, RoutineStore, RunStore, type CandidateRanking } from '@drover/store';
import { CandidateRegistry } from './candidate-registry.service';

/** A dry run waits for its provider at most this long, whatever the routine's condition timeout. */
export const DRY_RUN_TIMEOUT_MS = 30_000;

/**
 * Answers the api's dry runs of selector routines (`GET /routines/{name}/candidates`): asks the
 * routine's provider, as a tick would, and ranks the answer with core's `rankCandidates` against
 * the runs still pending for its keys. It enqueues nothing and leaves the idle backoff alone.
 * Every scheduler replica serves (the providers are in each); one answers each request.
 */
@Injectable()
export class CandidateRanker implements OnApplicationBootstrap {
  constructor(
    private readonly probe: CandidateProbe,
    private readonly providers: CandidateRegistry,
    private readonly routines: RoutineStore,
    private readonly runs: RunStore,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.probe.serve((name) => this.rank(name));
  }

  async rank(name: string): Promise<CandidateRanking> {
    const at = this.clock.now();
    const def = (await this.routines.get(name))?.def;
    const base = { routine: name, at, provider: '', maxPerTick: 0, depthWeight: 0, ranked: [] };
    if (!def?.selector) return { ...base, error: `routine "${name}" is not a selector routine here` };
    const { provider, args, maxPerTick, depthWeight } = def.selector;
    const head = { ...base, provider, maxPerTick, depthWeight };
    try {
      const [candidates, open] = await Promise.all([
        this.providers.candidates(
          provider,
          { routine: name, slot: at, ...(args && { args }) },
          Math.min(def.conditionTimeoutMs, DRY_RUN_TIMEOUT_MS),
        ),
        this.runs.openRunsOfRoutine(name, { readOnly: true }),
      ]);
      const keyed = open.filter((r) => r.key !== undefined);
      const pendingKeys = new Set(keyed.map((r) => r.key!));
      const overrideKeys = new Set(keyed.filter((r) => r.source === 'manual').map((r) => r.key!));
      const now = this.clock.now();
      return {
        ...head,
        at: now,
        ranked: rankCandidates(candidates, { now, maxPerTick, depthWeight, pendingKeys, overrideKeys }),
      };
    } catch (err) {
      return { ...head, error: String((err as Error)?.message ?? err).slice(0, 400) };
    }
  }
}
