import settings from './redis-requirements.json';

/** The maxmemory-policy Drover needs (BullMQ loses jobs silently if Redis evicts keys). */
export const REQUIRED_MEMORY_POLICY = settings.required['maxmemory-policy'];

/**
 * `redis-server` arguments for a private server on loopback with what Drover requires: the test
 * harness and the quick start's embedded Redis start theirs from this (scripts read the JSON).
 */
export function localServerArgs(port: number, dir: string): string[] {
  const pairs = { port: String(port), dir, ...settings.local, ...settings.required };
  return Object.entries(pairs).flatMap(([k, v]) => [`--${k}`, v]);
}
