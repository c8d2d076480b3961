import type { RedisClient } from '../redis-connections';
import { NotReplicatedError } from '../errors/not-replicated.error';

/** `DROVER_REDIS_WAIT_REPLICAS` / `DROVER_REDIS_WAIT_TIMEOUT_MS`: 0 replicas = no WAIT at all. */
export interface ReplicaWaitOptions {
  replicas: number;
  timeoutMs: number;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 1_000;

/** What {@link ReplicaWait.begin} noted before a write: how often the connection had closed. */
export interface WaitTicket {
  readonly closes: number;
}

const closeCounts = new WeakMap<RedisClient, { n: number }>();

function closesOf(client: RedisClient): { n: number } {
  let c = closeCounts.get(client);
  if (!c) {
    const counter = { n: 0 };
    client.on('close', () => counter.n++);
    closeCounts.set(client, counter);
    c = counter;
  }
  return c;
}

/**
 * Makes a write count only once `replicas` replicas have it (Redis `WAIT`). WAIT waits for the
 * replication offset of the *connection's* last write, so it must go on the connection that made
 * the write, after its answer: a WAIT on another connection (or re-sent on a new one after a
 * reconnect) would wait for nothing and answer at once. So the caller notes the connection's close
 * count before the write ({@link begin}) and {@link confirm} refuses the write if the connection
 * closed in between. It cannot be inside MULTI or Lua (Redis answers WAIT there without waiting),
 * nor pipelined with a script: ioredis re-sends a script unknown to the server (NOSCRIPT) after
 * the WAIT. Other writes on the shared connection only make the wait longer, never shorter.
 *
 * Not for Redis Cluster: the command would go to a random node, not the one that took the write.
 */
export class ReplicaWait {
  private readonly counter: { n: number } | undefined;
  /** The WAIT about to be sent, which every write answered before it was sent may share. */
  private next?: Promise<number>;

  constructor(
    private readonly client: RedisClient | undefined,
    readonly options: ReplicaWaitOptions,
  ) {
    if (options.replicas > 0 && client?.isCluster) {
      throw new Error('DROVER_REDIS_WAIT_REPLICAS is not supported on Redis Cluster');
    }
    this.counter = options.replicas > 0 && client ? closesOf(client) : undefined;
  }

  /** No WAIT configured: callers skip the whole thing (no extra command). */
  get enabled(): boolean {
    return this.counter !== undefined;
  }

  begin(): WaitTicket {
    return { closes: this.counter?.n ?? 0 };
  }

  /**
   * One WAIT for every write confirmed in the same turn of the event loop (group commit): a WAIT
   * covers all writes its connection made before it, so writes answered before it is sent share it;
   * a write answered after it was sent waits for the next one.
   */
  private nextWait(): Promise<number> {
    this.next ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.next = undefined;
      const client = this.client as { call(...args: (string | number)[]): Promise<unknown> };
      return client.call('WAIT', this.options.replicas, this.options.timeoutMs).then(Number);
    });
    return this.next;
  }

  /** WAITs for the writes made since `ticket`; throws {@link NotReplicatedError} if too few replicas have them. */
  async confirm(ticket: WaitTicket, what: string): Promise<void> {
    if (!this.counter || !this.client) return;
    const { replicas, timeoutMs } = this.options;
    if (this.counter.n !== ticket.closes) {
      throw new NotReplicatedError(what, 0, replicas, 'the connection to Redis closed after the write');
    }
    let acked: number;
    try {
      acked = await this.nextWait();
    } catch (err) {
      throw new NotReplicatedError(what, 0, replicas, `WAIT failed (${(err as Error).message})`);
    }
    if (this.counter.n !== ticket.closes) {
      throw new NotReplicatedError(what, 0, replicas, 'the connection to Redis closed before WAIT answered');
    }
    if (acked < replicas) {
      throw new NotReplicatedError(what, acked, replicas, `${acked} acknowledged within ${timeoutMs} ms`);
    }
  }
}
