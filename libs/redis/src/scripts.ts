import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisClient } from './redis-connections';

/** Drover's Lua scripts, named `<command>-<numKeys>.lua` as BullMQ names its own. */
const SCRIPT_FILES = [
  'leaderAcquire-2',
  'leaderRenew-1',
  'leaderRelease-1',
  'fencedHset-2',
  'claimSlot-2',
  'advanceCursor-1',
] as const;

export type DroverScriptName = (typeof SCRIPT_FILES)[number] extends `${infer N}-${number}` ? N : never;

/** Negative replies of our scripts, mapped to meaning (as BullMQ's ErrorCode does). */
export enum ScriptCode {
  StaleToken = -1,
}

export interface DroverScripts {
  /** `holder` is `<instance>|<nonce>`; answers [epoch, lease value], epoch 0 when another holder has it. */
  leaderAcquire(leaderKey: string, epochKey: string, holder: string, leaseMs: number): Promise<[number, string]>;
  leaderRenew(leaderKey: string, token: string, leaseMs: number): Promise<number>;
  leaderRelease(leaderKey: string, token: string): Promise<number>;
  fencedHset(leaderKey: string, hashKey: string, token: string, ...fieldValues: string[]): Promise<number>;
  claimSlot(leaderKey: string, slotKey: string, token: string, value: string, ttlMs: number): Promise<number>;
  advanceCursor(stateKey: string, cursor: string, ...fieldValues: string[]): Promise<number>;
}

const defined = new WeakSet<object>();

/**
 * Registers the scripts on a client (ioredis caches them with EVALSHA) and returns it typed.
 * Idempotent per client.
 */
export function withDroverScripts(client: RedisClient): RedisClient & DroverScripts {
  if (!defined.has(client)) {
    for (const file of SCRIPT_FILES) {
      const [name, keys] = file.split('-') as [string, string];
      const lua = readFileSync(join(__dirname, 'lua', `${file}.lua`), 'utf8');
      client.defineCommand(name, { numberOfKeys: Number(keys), lua });
    }
    defined.add(client);
  }
  return client as RedisClient & DroverScripts;
}
