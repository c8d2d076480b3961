import { RoutineNotFoundError } from '@drover/core';
import { ScriptCode, withDroverScripts, type DroverKeys, type RedisClient } from '@drover/redis';
import { LAUNCHER_FIELDS } from './routine-record';

/**
 * An operator's re-enable: forgets the launcher's failures, backoff, last error and disable (core's
 * resetLauncher) in one script, so the routine fires again (the reconciler restores its schedule at
 * once, the watchdog looks at it now). Slots missed while it was disabled are then treated by its
 * catch-up policy, as after downtime. Returns whether it was disabled. @throws RoutineNotFoundError
 */
export async function enableRoutine(
  redis: RedisClient,
  keys: DroverKeys,
  name: string,
  channel: string,
): Promise<boolean> {
  const res = await withDroverScripts(redis).enableRoutine(
    keys.routines(),
    keys.routineState(name),
    keys.routineDue(),
    keys.routineChangeLog(),
    keys.routineChangeSeq(),
    keys.routineCounts(),
    name,
    channel,
    ...LAUNCHER_FIELDS,
  );
  if (res === ScriptCode.RoutineGone) throw new RoutineNotFoundError(name);
  return res === 1;
}
