import { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisTarget } from '@drover/config';
import { connectionPlan, type ConnectionRole } from './connection-options';
import { ReplicaWait, type ReplicaWaitOptions } from './replication/replica-wait';

export type RedisClient = Redis | Cluster;

/** A client the caller opened and keeps owning (e.g. an app's existing ioredis instance). */
export interface BorrowedClient {
  kind: 'client';
  client: RedisClient;
}

/**
 * Opens and tracks every Redis connection of a process so that shutdown closes them all.
 * BullMQ gets its own connections (it blocks on some); Drover's commands share one.
 */
export class RedisConnections {
  private readonly opened = new Set<RedisClient>();
  private giveUp!: () => void;
  /**
   * Settles once {@link abandon} gave up on the connections. A close waiting on Redis then may never
   * end: BullMQ's `Worker.close()` was seen waiting for its main loop after every connection had
   * ended, until the shutdown backstop (exit 1). Shutdown hooks race their closes against it.
   */
  readonly abandoned = new Promise<void>((resolve) => (this.giveUp = resolve));
  private commandClient?: RedisClient;
  private waiter?: ReplicaWait;

  constructor(
    private readonly target: RedisTarget | BorrowedClient,
    private readonly instanceId: string,
    private readonly log?: Logger,
    private readonly waitOptions: ReplicaWaitOptions = { replicas: 0, timeoutMs: 0 },
  ) {
    if (waitOptions.replicas > 0 && this.isCluster) {
      throw new Error('waiting for replicas (DROVER_REDIS_WAIT_REPLICAS) is not supported on Redis Cluster');
    }
  }

  /**
   * Connections around a client the caller owns: it serves Drover's commands and is never closed
   * here; every other connection (BullMQ's blocking ones) is a duplicate of it, owned and closed here.
   */
  static borrowing(client: RedisClient, instanceId: string, log?: Logger, wait?: ReplicaWaitOptions): RedisConnections {
    return new RedisConnections({ kind: 'client', client }, instanceId, log, wait);
  }

  /** WAIT for replicas after the command connection's enqueues (a no-op when none are asked). */
  get replicaWait(): ReplicaWait {
    this.waiter ??= this.waitOn(this.command);
    return this.waiter;
  }

  /** WAIT for replicas after writes made on `client` (a no-op when none are asked). */
  waitOn(client: RedisClient): ReplicaWait {
    return new ReplicaWait(this.waitOptions.replicas > 0 ? client : undefined, this.waitOptions);
  }

  get isCluster(): boolean {
    return this.target.kind === 'cluster' || (this.target.kind === 'client' && this.target.client.isCluster);
  }

  /** The shared connection for Drover's own (non-blocking) commands. */
  get command(): RedisClient {
    if (this.target.kind === 'client') return this.target.client;
    this.commandClient ??= this.open('command', 'cmd');
    return this.commandClient;
  }

  /** A fresh connection; `blocking` ones are what BullMQ Workers and QueueEvents need. */
  open(role: ConnectionRole, purpose: string): RedisClient {
    const name = `drover:${this.instanceId}:${purpose}`;
    const client =
      this.target.kind === 'client' ? duplicate(this.target.client, role, name) : connect(this.target, role, name);
    // Without a listener ioredis prints every reconnect error to stderr as an unhandled event.
    client.on('error', (err: Error) => this.log?.warn({ err: err.message, purpose }, 'redis connection error'));
    this.track(client);
    return client;
  }

  /**
   * Keeps `client` — and the copies BullMQ makes of it for its Workers and QueueEvents, which it
   * closes itself but which {@link abandon} must reach — until it ends.
   */
  private track(client: RedisClient): void {
    this.opened.add(client);
    client.once('end', () => this.opened.delete(client));
    const copy = client.duplicate.bind(client) as (...args: unknown[]) => RedisClient;
    const tracked = (...args: unknown[]): RedisClient => {
      const made = copy(...args);
      this.track(made);
      return made;
    };
    Object.assign(client, { duplicate: tracked });
  }

  /**
   * Gives up on every connection, copies included: pending commands fail instead of waiting for a
   * Redis that is not coming back in time. For a shutdown whose grace period ran out while Redis
   * was unreachable. Returns how many connections it gave up on.
   */
  abandon(): number {
    const clients = [...this.opened];
    for (const c of clients) {
      c.disconnect();
      // A connection disconnected while it waited to reconnect keeps its commands forever, neither
      // sent nor failed (ioredis) — which is how BullMQ's close() hangs while Redis is away. One
      // more connect attempt ends it for good and fails them.
      if (c instanceof Redis && c.status === 'reconnecting') {
        c.connect().then(
          () => c.disconnect(),
          () => undefined,
        );
      }
    }
    this.giveUp();
    return clients.length;
  }

  /** Round-trips a PING; used by readiness probes. */
  async ping(timeoutMs = 1_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`redis did not answer PING within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.command.ping(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async closeAll(): Promise<void> {
    const clients = [...this.opened];
    this.opened.clear();
    this.commandClient = undefined;
    this.waiter = undefined;
    await Promise.all(
      clients.map(async (c) => {
        // QUIT on a connection that is not up would wait for a reconnect that may never come.
        if (c.status !== 'ready') return c.disconnect();
        try {
          await c.quit();
        } catch {
          c.disconnect();
        }
      }),
    );
  }
}

function connect(target: RedisTarget, role: ConnectionRole, name: string): RedisClient {
  const plan = connectionPlan(target, role, name);
  if (plan.kind === 'cluster') return new Cluster(plan.nodes, plan.options);
  return plan.url ? new Redis(plan.url, plan.options) : new Redis(plan.options);
}

/** A copy of a borrowed client's settings, with the retry rule of `role` (see connectionPlan). */
function duplicate(client: RedisClient, role: ConnectionRole, connectionName: string): RedisClient {
  const maxRetriesPerRequest = role === 'blocking' ? null : 3;
  if (client instanceof Cluster) {
    return client.duplicate(undefined, {
      redisOptions: { ...client.options.redisOptions, connectionName, maxRetriesPerRequest },
    });
  }
  return client.duplicate({ connectionName, maxRetriesPerRequest });
}
