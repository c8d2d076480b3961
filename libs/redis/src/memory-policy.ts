import type { RedisClient } from './redis-connections';
import { REQUIRED_MEMORY_POLICY } from './server-settings';

export type MemoryPolicyVerdict =
  { ok: true; policy: string } | { ok: false; policy: string; message: string } | { ok: 'unknown'; message: string };

/**
 * BullMQ loses jobs silently if Redis evicts keys, so anything but `noeviction` deserves a loud
 * warning. Read from `INFO memory`, not CONFIG: Drover's ACL users (docs/redis.md) and managed
 * Redis forbid CONFIG but allow INFO. When even INFO is refused we can only say we could not check.
 */
export async function checkMemoryPolicy(client: RedisClient): Promise<MemoryPolicyVerdict> {
  try {
    const info = (await client.call('INFO', 'memory')) as string;
    const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
    if (!policy) throw new Error('INFO memory has no maxmemory_policy');
    if (policy === REQUIRED_MEMORY_POLICY) return { ok: true, policy };
    return {
      ok: false,
      policy,
      message: `Redis maxmemory-policy is "${policy}": Redis may evict job keys and lose work. Set "maxmemory-policy ${REQUIRED_MEMORY_POLICY}".`,
    };
  } catch (err) {
    return {
      ok: 'unknown',
      message: `could not read maxmemory-policy (${(err as Error).message}); make sure it is "${REQUIRED_MEMORY_POLICY}"`,
    };
  }
}

/** Redis's memory against its limit, from `INFO memory`; `full` when writes are refused. */
export interface MemoryUse {
  usedBytes: number;
  /** 0: no limit. */
  maxBytes: number;
  full: boolean;
}

/**
 * How full Redis is. At `maxmemory` with `noeviction` Redis refuses writes (RedisOutOfMemoryError)
 * but still answers reads, so a process stays ready and says so in its readiness details. Read
 * from `INFO memory` like the policy (allowed where CONFIG is not); undefined when INFO is refused.
 */
export async function readMemoryUse(client: RedisClient): Promise<MemoryUse | undefined> {
  try {
    const info = (await client.call('INFO', 'memory')) as string;
    const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
    const usedBytes = field('used_memory');
    const maxBytes = field('maxmemory');
    if (!Number.isFinite(usedBytes) || !Number.isFinite(maxBytes)) return undefined;
    return { usedBytes, maxBytes, full: maxBytes > 0 && usedBytes >= maxBytes };
  } catch {
    return undefined;
  }
}
