import type { RedisClient } from '../redis-connections';

export interface ResilientSubscriberOptions {
  /** Opens the dedicated subscriber connection, e.g. `() => connections.open('blocking', 'worker-sub')`. */
  open: () => RedisClient;
  channels: readonly string[];
  onMessage: (channel: string, message: string) => void;
  /**
   * Called once the channels are subscribed again after a loss of the connection: re-read the
   * state whose announcements may have been published during the gap (they reached nobody).
   * Not called after the first subscription: the owner reads its state after {@link start}.
   */
  onResync?: () => void | Promise<void>;
  /** Called when the subscription is lost (the connection closed or is reconnecting). */
  onLost?: () => void;
  /** Reports a failed onResync (the next loss resyncs again); nothing is thrown at the caller. */
  onError?: (err: Error) => void;
}

/**
 * One pub/sub subscription that survives connection loss. Redis delivers a message only to the
 * connections subscribed when it is published, so whatever was announced while the connection was
 * down is gone: after every reconnect this subscribes again and only then calls `onResync`, so
 * the owner re-reads what it may have missed. In that order there is no window in which a change
 * is neither delivered nor in what is re-read: anything published after the SUBSCRIBE reply
 * arrives as a message, anything published before it is already stored when the re-read starts.
 *
 * ioredis re-subscribes by itself on reconnect, but sends that after 'ready' and tells nobody
 * when it is done; SUBSCRIBE is idempotent, so the one sent here is what is waited for.
 */
export class ResilientSubscriber {
  private readonly client: RedisClient;
  private live = false;
  /** Bumped on every loss: a re-subscription that completes after a newer loss is not live. */
  private losses = 0;
  private needsResync = false;
  private closed = false;

  private constructor(private readonly opts: ResilientSubscriberOptions) {
    this.client = opts.open();
  }

  /**
   * Opens the connection and subscribes; resolves once subscribed. If that first subscription
   * fails the connection is closed and the error thrown (the owner retries with a new one).
   */
  static async start(opts: ResilientSubscriberOptions): Promise<ResilientSubscriber> {
    const sub = new ResilientSubscriber(opts);
    await sub.subscribeFirst();
    return sub;
  }

  /** Whether the channels are subscribed now (false while connecting or reconnecting). */
  isLive(): boolean {
    return this.live;
  }

  private async subscribeFirst(): Promise<void> {
    const { client, opts } = this;
    client.on('message', (channel: string, message: string) => opts.onMessage(channel, message));
    for (const event of ['close', 'reconnecting', 'end']) client.on(event, () => this.lost());
    client.on('ready', () => {
      if (this.needsResync && !this.closed) void this.resync();
    });
    try {
      await client.subscribe(...opts.channels);
    } catch (err) {
      await this.close();
      throw err;
    }
    // Lost while the first SUBSCRIBE was under way: the next 'ready' subscribes and resyncs.
    if (!this.needsResync && !this.closed) this.live = true;
  }

  private lost(): void {
    this.losses++;
    this.needsResync = true;
    if (!this.live) return;
    this.live = false;
    this.opts.onLost?.();
  }

  private async resync(): Promise<void> {
    const losses = this.losses;
    try {
      await this.client.subscribe(...this.opts.channels);
    } catch {
      return; // the connection went again: its next 'ready' retries
    }
    if (this.closed || losses !== this.losses) return;
    this.needsResync = false;
    this.live = true;
    try {
      await this.opts.onResync?.();
    } catch (err) {
      this.opts.onError?.(err as Error);
    }
  }

  /** Unsubscribes for good and closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.live = false;
    const c = this.client;
    if (c.status !== 'ready') return c.disconnect();
    await c.quit().then(
      () => undefined,
      () => c.disconnect(),
    );
  }
}
