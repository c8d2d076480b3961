/**
 * Key naming. Drover's own keys live under one hash tag (`{core}`) so our Lua scripts can touch
 * several of them atomically on Redis Cluster; every BullMQ queue gets its own hash tag by
 * wrapping the queue name, so each queue's keys share a slot (REDIS_CLUSTER_NODES).
 */
export class DroverKeys {
  constructor(
    readonly prefix: string,
    readonly cluster: boolean,
  ) {}

  /** A key of Drover's own state, e.g. `drover:{core}:leader`. */
  core(...parts: (string | number)[]): string {
    return [this.prefix, '{core}', ...parts].join(':');
  }

  /** The prefix BullMQ is given for every Queue/Worker. */
  get bullPrefix(): string {
    return this.prefix;
  }

  /** The name BullMQ is given for a Drover queue: hash-tagged on Cluster. */
  bullQueueName(queue: string): string {
    return this.cluster ? `{${queue}}` : queue;
  }
}
