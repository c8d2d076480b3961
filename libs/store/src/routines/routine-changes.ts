import type { DroverKeys, RedisClient } from '@drover/redis';

/**
 * Announces on the routines' change channel (the one {@link RoutineStore.changesChannel} names) a
 * change the routine store's own writes did not announce, such as a routine the dispatcher just
 * disabled: the leader then reconciles that routine at once instead of at its next full pass.
 */
export class RoutineChanges {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  get channel(): string {
    return this.keys.routinesChanged();
  }

  /** Tells whoever listens that routine `name` changed. */
  async announce(name: string): Promise<void> {
    await this.redis.publish(this.channel, name);
  }
}
