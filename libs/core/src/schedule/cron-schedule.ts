import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { cronFields } from '../model/cron-expression';
import { parsedCronFields } from './cron-parsed-fields';
import { wallSlotFinder } from './cron-wall-next';
import type { CronTrigger } from '../model/trigger.schema';
import { fromWallMs, offsetTransition, zoneOffsetMs } from '../time/time-zone';

/**
 * Cron slots in a time zone, with the DST policy applied.
 *
 * cron-parser is run in UTC over *wall-clock* time (local time written as if it were UTC), so it never sees
 * DST; each wall-clock slot is then mapped to a real instant by {@link fromWallMs}:
 * - a slot inside a spring-forward gap fires at the first valid instant after the gap (the transition);
 *   several gap slots, or a gap slot and the slot at the gap's end, collapse into that one fire;
 * - a slot inside a fall-back repeated hour fires once, at its first occurrence.
 */

const FALL_BACK_PROBE_MS = 3 * 3_600_000;
/** Safety net: wall-clock steps that may map onto already-yielded instants (DST collapse) before giving up. */
const MAX_IDLE_STEPS = 100_000;

function wallIterator(trigger: CronTrigger, wallMs: number): CronExpression {
  return CronExpressionParser.parse(cronFields(trigger.cron).join(' '), { tz: 'UTC', currentDate: new Date(wallMs) });
}

/**
 * The wall-clock point that splits slots into "before `epochMs`" and "after `epochMs`". Normally the wall time
 * of `epochMs`; during the second pass of a fall-back hour it is pushed to the end of the repeated range,
 * because repeated wall times map to their first (earlier) occurrence.
 */
function splitWall(epochMs: number, tz: string): number {
  const offset = zoneOffsetMs(epochMs, tz);
  const width = zoneOffsetMs(epochMs - FALL_BACK_PROBE_MS, tz) - offset;
  if (width > 0 && zoneOffsetMs(epochMs - width, tz) === offset + width) {
    // Second pass: every wall time before the end of the repetition already fired in the first pass.
    return offsetTransition(epochMs - width, epochMs, tz) + width + offset;
  }
  return epochMs + offset;
}

function step(it: CronExpression, forward: boolean): number | undefined {
  try {
    return (forward ? it.next() : it.prev()).getTime();
  } catch {
    return undefined; // no further date (cron-parser's loop limit or calendar range)
  }
}

/**
 * The wall-clock slots after `wallMs`, one per call: {@link wallSlotFinder}'s from cron-parser's
 * parsed fields where it can tell, else cron-parser's own walk (day fields with `L` or `#`).
 */
function forwardWalk(trigger: CronTrigger, wallMs: number): () => number | undefined {
  const find = wallSlotFinder(parsedCronFields(trigger.cron));
  let wall = wallMs;
  let it: CronExpression | undefined;
  return () => {
    const fast = it ? undefined : find?.(wall);
    if (fast !== undefined) return (wall = fast);
    it ??= wallIterator(trigger, wall);
    return step(it, true);
  };
}

/**
 * Lazily yield the fire instants (epoch ms) of `trigger` strictly after `afterMs`, strictly increasing.
 * Stops when cron-parser finds no further date.
 */
export function* cronSlotsAfter(trigger: CronTrigger, afterMs: number): Generator<number, void, undefined> {
  const tz = trigger.tz ?? 'UTC';
  const next = forwardWalk(trigger, splitWall(afterMs, tz) - 1);
  let last = afterMs;
  for (let idle = 0; idle < MAX_IDLE_STEPS; idle++) {
    const wall = next();
    if (wall === undefined) return;
    const at = fromWallMs(wall, tz).epochMs;
    if (at > last) {
      last = at;
      idle = 0;
      yield at;
    }
  }
}

/**
 * Lazily yield the fire instants (epoch ms) of `trigger` strictly before `beforeMs`, strictly decreasing.
 * Stops when cron-parser finds no earlier date.
 */
export function* cronSlotsBefore(trigger: CronTrigger, beforeMs: number): Generator<number, void, undefined> {
  const tz = trigger.tz ?? 'UTC';
  const it = wallIterator(trigger, splitWall(beforeMs, tz));
  let last = beforeMs;
  for (let idle = 0; idle < MAX_IDLE_STEPS; idle++) {
    const wall = step(it, false);
    if (wall === undefined) return;
    const at = fromWallMs(wall, tz).epochMs;
    if (at < last) {
      last = at;
      idle = 0;
      yield at;
    }
  }
}

/** Whether the cron expression names wall-clock time `wallMs` (fake-UTC ms) itself. */
export function cronNamesWall(trigger: CronTrigger, wallMs: number): boolean {
  return step(wallIterator(trigger, wallMs - 1), true) === wallMs;
}
