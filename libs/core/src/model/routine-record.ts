import { isDeepStrictEqual } from 'node:util';
import type { Origin } from './origin';
import type { Pause } from './pause';
import type { Routine } from './routine.schema';

/** A file routine changed through the API: who changed it last and when (epoch ms). */
export interface Drift {
  by?: string;
  at: number;
}

/** Who archived a routine and when (epoch ms); unset `by` for the policy file. */
export interface Archive {
  at: number;
  by?: string;
}

/** A routine as stored: its validated definition plus bookkeeping. Times are epoch ms. */
export interface RoutineRecord {
  def: Routine;
  origin: Origin;
  createdAt: number;
  updatedAt: number;
  /** Bumped on every change of `def`; lets readers detect a concurrent edit. */
  version: number;
  /** While paused: who paused it, when, why, and until when. */
  pause?: Pause;
  /** While archived: who archived it and when. */
  archive?: Archive;
  /**
   * Set while a file routine differs from the file because of an API edit; the next apply of
   * the policy file overwrites the edit and clears it.
   */
  drift?: Drift;
  /** Who created it and who changed it last (an API token's name, "client"); unset for the file. */
  createdBy?: string;
  updatedBy?: string;
}

/** What one write makes of a routine: its definition and origin, and what becomes of its pause, archive and drift. */
export interface RoutineChange {
  def: Routine;
  origin: Origin;
  /** Undefined keeps the stored pause (or starts one at `now`), null starts one at `now`; unset unless paused. */
  pause?: Pause | null;
  /** Undefined keeps the stored archive (or starts one at `now` by the writer); unset unless archived. */
  archive?: Archive;
  /** Undefined keeps the stored drift, null clears it. */
  drift?: Drift | null;
}

/**
 * The change an upsert of `def` from `origin` makes of the stored routine. A file routine changed
 * through the API stays a file routine (the next apply manages it again), marked as drifted at
 * `now` by `by` unless the definition is the same; any other upsert clears the drift.
 */
export function upsertChange(
  prev: RoutineRecord | undefined,
  def: Routine,
  origin: Origin,
  now: number,
  by?: string,
): RoutineChange {
  if (origin === 'api' && prev?.origin === 'file') {
    const same = isDeepStrictEqual(prev.def, def);
    return { def, origin: 'file', ...(!same && { drift: { at: now, ...(by && { by }) } }) };
  }
  return { def, origin, drift: null };
}

/**
 * The record a write stores in place of `prev` (undefined: none yet), or undefined when the change
 * would store the same thing (nothing to write). The version goes up by one; a pause is kept while
 * the routine stays paused and dropped otherwise, an archive likewise while it stays archived; `createdBy` is set once, `updatedBy` by every
 * write made by someone (`by`).
 */
export function nextRoutineRecord(
  prev: RoutineRecord | undefined,
  change: RoutineChange,
  now: number,
  by?: string,
): RoutineRecord | undefined {
  const { def, origin } = change;
  const pause =
    def.status !== 'paused'
      ? undefined
      : change.pause === undefined
        ? (prev?.pause ?? { at: now })
        : (change.pause ?? { at: now });
  const archive =
    def.status !== 'archived'
      ? undefined
      : (change.archive ??
        (prev?.def.status === 'archived' ? prev.archive : undefined) ?? {
          at: now,
          ...(by !== undefined && { by }),
        });
  const drift = change.drift === undefined ? prev?.drift : (change.drift ?? undefined);
  if (
    prev &&
    isDeepStrictEqual(prev.def, def) &&
    prev.origin === origin &&
    isDeepStrictEqual(prev.pause, pause) &&
    isDeepStrictEqual(prev.archive, archive) &&
    isDeepStrictEqual(prev.drift, drift)
  )
    return undefined;
  const createdBy = prev ? prev.createdBy : by;
  return {
    def,
    origin,
    createdAt: prev?.createdAt ?? now,
    updatedAt: now,
    version: (prev?.version ?? 0) + 1,
    ...(pause && { pause }),
    ...(archive && { archive }),
    ...(drift && { drift }),
    ...(createdBy !== undefined && { createdBy }),
    ...(by !== undefined && { updatedBy: by }),
  };
}

/**
 * How applying the policy file treats one of its routines given the stored one: a pause someone
 * made (API, client: it has a `by`) survives while the file says active, since pausing is an
 * operator's act and every new leader applies the file again. An archive someone made survives
 * whatever the file says (the file never unarchives: only `unarchive` does). `unchanged` when the
 * stored routine is already this file routine, undrifted.
 */
export function fileRoutineToApply(
  prev: RoutineRecord | undefined,
  fileDef: Routine,
): { def: Routine; unchanged: boolean } {
  const keepPause = prev?.def.status === 'paused' && prev.pause?.by !== undefined && fileDef.status === 'active';
  const keepArchive = prev?.def.status === 'archived' && prev.archive?.by !== undefined;
  const def: Routine = keepArchive
    ? { ...fileDef, status: 'archived' }
    : keepPause
      ? { ...fileDef, status: 'paused' }
      : fileDef;
  const unchanged = !!prev && prev.origin === 'file' && !prev.drift && isDeepStrictEqual(prev.def, def);
  return { def, unchanged };
}

/** The acts on a routine's status an operator names (API, CLI, console, client). */
export type StatusAct = 'pause' | 'resume' | 'archive' | 'unarchive';

/**
 * The status `act` leaves a routine in, or `refused` when its current status forbids it: an
 * archived routine is neither paused nor resumed (unarchive it first). Archiving an archived
 * routine and unarchiving one that is not archived change nothing (`same`: the answer is the
 * routine as it is, so a retried call is harmless); unarchiving makes it active. Pure.
 */
export function statusAfter(
  current: Routine['status'],
  act: StatusAct,
): { status: Routine['status']; same: boolean } | { refused: string } {
  switch (act) {
    case 'archive':
      return { status: 'archived', same: current === 'archived' };
    case 'unarchive':
      return current === 'archived' ? { status: 'active', same: false } : { status: current, same: true };
    case 'pause':
    case 'resume':
      if (current === 'archived') return { refused: act === 'pause' ? 'paused' : 'resumed' };
      return { status: act === 'pause' ? 'paused' : 'active', same: false };
  }
}
