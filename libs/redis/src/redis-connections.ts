import { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RedisTarget } from '@drover/config';
import { connectionPlan, type ConnectionRole } from './connection-options';

export type RedisClient = Redis | Cluster;

/**
 * Opens and tracks every Redis connection of a process so that shutdown closes them all.
 * BullMQ gets its own connections (it blocks on some); Drover's commands share one.
 */
export class RedisConnections {
  private readonly opened = new Set<RedisClient>();
  private commandClient?: RedisClient;

  constructor(
    private readonly target: RedisTarget,
    private readonly instanceId: string,
    private readonly log?: Logger,
  ) {}

  get isCluster(): boolean {
    return this.target.kind === 'cluster';
  }

  /** The shared connection for Drover's own (non-blocking) commands. */
  get command(): RedisClient {
    this.commandClient ??= this.open('command', 'cmd');
    return this.commandClient;
  }

  /** A fresh connection; `blocking` ones are what BullMQ Workers and QueueEvents need. */
  open(role: ConnectionRole, purpose: string): RedisClient {
    const plan = connectionPlan(this.target, role, `drover:${this.instanceId}:${purpose}`);
    const client =
      plan.kind === 'cluster'
        ? new Cluster(plan.nodes, plan.options)
        : plan.url
          ? new Redis(plan.url, plan.options)
          : new Redis(plan.options);
    // Without a listener ioredis prints every reconnect error to stderr as an unhandled event.
    client.on('error', (err: Error) => this.log?.warn({ err: err.message, purpose }, 'redis connection error'));
    this.opened.add(client);
    client.once('end', () => this.opened.delete(client));
    return client;
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
