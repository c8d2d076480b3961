import { parseIsoInstant } from '../model/iso-instant';

/** The instants (epoch ms) a routine's slots lie within: none before `startMs`, none after `endMs`. */
export interface SlotBounds {
  startMs?: number;
  endMs?: number;
}

/** A routine's `startAt` / `endAt` as epoch ms; undefined when it has neither. Pure. */
export function slotBounds(routine: { startAt?: string; endAt?: string }): SlotBounds | undefined {
  const startMs = routine.startAt === undefined ? undefined : parseIsoInstant(routine.startAt);
  const endMs = routine.endAt === undefined ? undefined : parseIsoInstant(routine.endAt);
  if (startMs === undefined && endMs === undefined) return undefined;
  return { ...(startMs !== undefined && { startMs }), ...(endMs !== undefined && { endMs }) };
}

/** Whether `slot` lies within `bounds` (both ends included). Pure. */
export function withinBounds(bounds: SlotBounds | undefined, slot: number): boolean {
  if (!bounds) return true;
  return (
    (bounds.startMs === undefined || slot >= bounds.startMs) && (bounds.endMs === undefined || slot <= bounds.endMs)
  );
}

/**
 * A slot stream ascending from `afterMs`, cut to `bounds`: the stream is started just before
 * `startMs` (no walk through the slots before it) and ends at the first slot past `endMs`.
 * `slotsAfter` gives the unbounded stream strictly after its argument.
 */
export function* boundedAfter(
  slotsAfter: (afterMs: number) => Iterable<number>,
  afterMs: number,
  bounds: SlotBounds | undefined,
): Generator<number, void, undefined> {
  const from = bounds?.startMs === undefined ? afterMs : Math.max(afterMs, bounds.startMs - 1);
  for (const at of slotsAfter(from)) {
    if (bounds?.endMs !== undefined && at > bounds.endMs) return;
    yield at;
  }
}

/** The mirror of {@link boundedAfter}: descending from `beforeMs`, cut to `bounds`. */
export function* boundedBefore(
  slotsBefore: (beforeMs: number) => Iterable<number>,
  beforeMs: number,
  bounds: SlotBounds | undefined,
): Generator<number, void, undefined> {
  const from = bounds?.endMs === undefined ? beforeMs : Math.min(beforeMs, bounds.endMs + 1);
  for (const at of slotsBefore(from)) {
    if (bounds?.startMs !== undefined && at < bounds.startMs) return;
    yield at;
  }
}
