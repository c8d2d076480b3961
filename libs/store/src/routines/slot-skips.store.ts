import { MAX_PENDING_SKIPS, type OperatorSkip } from '@drover/core';
import type { DroverKeys, RedisClient } from '@drover/redis';

/** A pending skip outlives its slot by this much: a fire that late is caught up, not dispatched on time. */
const KEEP_PAST_SLOT_MS = 86_400_000;

function decode(field: string, raw: string): OperatorSkip | undefined {
  const slot = Number(field);
  try {
    const v = JSON.parse(raw) as { by?: unknown; at?: unknown };
    if (!Number.isSafeInteger(slot) || typeof v.by !== 'string' || typeof v.at !== 'number') return undefined;
    return { slot, by: v.by, at: v.at };
  } catch {
    return undefined;
  }
}

/**
 * Operators' pending skips of single slots, one small hash per routine (field: the slot, epoch ms;
 * value: who and when). Bounded: at most {@link MAX_PENDING_SKIPS} per routine; a skip is removed
 * once its slot is decided (`forget`), and the hash expires a day after its latest slot, so skips
 * of a deleted routine go too.
 */
export class SlotSkips {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  /** Pending skips of `routine`, by slot. */
  async pending(routine: string): Promise<Map<number, OperatorSkip>> {
    const raw = await this.redis.hgetall(this.keys.routineSkips(routine));
    const out = new Map<number, OperatorSkip>();
    for (const [field, value] of Object.entries(raw)) {
      const skip = decode(field, value);
      if (skip) out.set(skip.slot, skip);
    }
    return out;
  }

  /**
   * Adds a skip of `skip.slot`, forgetting those older than `prunedBefore` first. Answers `exists`
   * when the slot was skipped already (the first skip stays), `full` (nothing written) when the
   * routine holds {@link MAX_PENDING_SKIPS} already.
   */
  async add(routine: string, skip: OperatorSkip, prunedBefore: number): Promise<'added' | 'exists' | 'full'> {
    const key = this.keys.routineSkips(routine);
    const stale = [...(await this.pending(routine)).keys()].filter((s) => s < prunedBefore);
    if (stale.length) await this.redis.hdel(key, ...stale.map(String));
    const res = await this.redis
      .multi()
      .hsetnx(key, String(skip.slot), JSON.stringify({ by: skip.by, at: skip.at }))
      .hlen(key)
      .exec();
    if (res?.[0]?.[1] !== 1) return 'exists';
    if (Number(res?.[1]?.[1] ?? 0) > MAX_PENDING_SKIPS) {
      await this.redis.hdel(key, String(skip.slot));
      return 'full';
    }
    await this.extend(key, skip.slot);
    return 'added';
  }

  /** Forgets the skips of `slots` (decided, or undone by an operator); answers how many there were. */
  async forget(routine: string, ...slots: number[]): Promise<number> {
    if (slots.length === 0) return 0;
    return this.redis.hdel(this.keys.routineSkips(routine), ...slots.map(String));
  }

  /** The hash lives a day past its latest slot (PEXPIREAT only ever moves it later: GT). */
  private async extend(key: string, slot: number): Promise<void> {
    await this.redis.pexpireat(key, slot + KEEP_PAST_SLOT_MS, 'GT');
    // GT leaves a key without a TTL alone (no TTL counts as infinite): give it one.
    if ((await this.redis.pttl(key)) < 0) await this.redis.pexpireat(key, slot + KEEP_PAST_SLOT_MS);
  }
}
