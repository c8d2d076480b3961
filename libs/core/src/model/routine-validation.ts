import { parseBundle } from './bundle.schema';
import type { Routine } from './routine.schema';

/**
 * Validates one routine definition (an API body, a client's call) with the rules of a policy
 * file's routines, defaults filled in; errors name the field. `knownQueues`: the queues it may name.
 */
export function validateRoutine(
  raw: unknown,
  knownQueues: string[],
): { ok: true; routine: Routine } | { ok: false; errors: string[] } {
  const res = parseBundle({ routines: [raw] }, { knownQueues });
  if (!res.ok) return res;
  return { ok: true, routine: res.bundle.routines[0]! };
}
