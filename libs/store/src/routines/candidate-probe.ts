import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { RankedCandidate } from '@drover/core';
import { DroverKeys, RedisConnections, ResilientSubscriber } from '@drover/redis';

/** What a scheduler replica answers for a selector routine's dry run. Times are epoch ms. */
export interface CandidateRanking {
  routine: string;
  /** The instant the ranking was made at (the scheduler's cluster clock). */
  at: number;
  provider: string;
  maxPerTick: number;
  depthWeight: number;
  /** Every candidate as a tick would rank it, with its verdict; empty when the provider failed. */
  ranked: RankedCandidate[];
  /** Why the provider's answer is unusable (a tick would count it a launch failure). */
  error?: string;
}

/** How an ask ended: the ranking, no scheduler took the request, or the one that took it did not answer in time. */
export type ProbeOutcome = { kind: 'answered'; ranking: CandidateRanking } | { kind: 'nobody' } | { kind: 'late' };

/** The first replica to claim a request holds its key with this until it writes the answer. */
const CLAIMED = 'claimed';
/** The request's key lives this long: long enough for the asker, short enough to leave nothing behind. */
const PROBE_TTL_MS = 60_000;
const POLL_MS = 25;
/** A request no replica claimed within this is answered by nobody (a replica claims at once). */
const CLAIM_WITHIN_MS = 2_000;
const PROBE_ID = /^[A-Za-z0-9_-]{8,64}$/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A request and its reply over Redis, for the one thing only a scheduler process can tell: what a
 * selector routine's candidate provider (code loaded in the scheduler) answers now. The api
 * publishes `{id, routine}` on a channel every scheduler replica subscribes to; the first replica
 * to claim the id's key (SET NX) runs the provider and writes the ranking to that key; the api
 * polls the key for a bounded time. A request published while no replica listens reaches nobody
 * (Redis keeps no message), which the asker sees as "nobody claimed it".
 */
@Injectable()
export class CandidateProbe implements OnApplicationShutdown {
  private readonly logger = new Logger('CandidateProbe');
  private subscriber?: ResilientSubscriber;

  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
  ) {}

  /** The api's side: asks for `routine`'s ranking under probe `id`, waiting at most `waitMs` for it. */
  async ask(routine: string, id: string, waitMs: number): Promise<ProbeOutcome> {
    const redis = this.connections.command;
    const listeners = await redis.publish(this.keys.candidatesAsk(), JSON.stringify({ id, routine }));
    // On Redis Cluster the count is the publishing node's subscribers only: wait for a claim then.
    if (listeners === 0 && !this.keys.cluster) return { kind: 'nobody' };
    const key = this.keys.candidatesProbe(id);
    for (let waited = 0; waited <= waitMs; waited += POLL_MS) {
      const value = await redis.get(key);
      if (value === null && waited >= CLAIM_WITHIN_MS) return { kind: 'nobody' };
      if (value !== null && value !== CLAIMED) {
        await redis.del(key);
        return { kind: 'answered', ranking: JSON.parse(value) as CandidateRanking };
      }
      await sleep(POLL_MS);
    }
    return { kind: 'late' };
  }

  /**
   * A scheduler replica's side: from now on, answers the requests it claims first with `rank`
   * (which must not throw: a provider's failure is part of its answer). Requests published
   * while its subscription is down are lost: their askers time out and ask again.
   */
  async serve(rank: (routine: string) => Promise<CandidateRanking>): Promise<void> {
    this.subscriber = await ResilientSubscriber.start({
      open: () => this.connections.open('command', 'candidates-ask'),
      channels: [this.keys.candidatesAsk()],
      onMessage: (_ch, raw) => {
        this.take(raw, rank).catch((err: unknown) =>
          this.logger.warn(`could not answer a candidates request: ${(err as Error).message}`),
        );
      },
    });
  }

  private async take(raw: string, rank: (routine: string) => Promise<CandidateRanking>): Promise<void> {
    let req: { id?: unknown; routine?: unknown };
    try {
      req = JSON.parse(raw) as typeof req;
    } catch {
      return;
    }
    if (typeof req.id !== 'string' || !PROBE_ID.test(req.id) || typeof req.routine !== 'string') return;
    const redis = this.connections.command;
    const key = this.keys.candidatesProbe(req.id);
    if ((await redis.set(key, CLAIMED, 'PX', PROBE_TTL_MS, 'NX')) !== 'OK') return;
    const ranking = await rank(req.routine);
    await redis.set(key, JSON.stringify(ranking), 'PX', PROBE_TTL_MS, 'XX');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.close();
  }
}
