import type { NewRun } from '../runs/new-run';
import type { RunStore } from '../runs/run.store';
import type { RunView } from '../runs/run-view';
import { keyConflict, type KeyConflict } from './ad-hoc-run';

type Runs = Pick<RunStore, 'enqueue' | 'enqueueMany' | 'get' | 'getMany'>;

/** An ad-hoc run to write, with the idempotency key its id came from (if any). */
export interface AdHocItem {
  run: NewRun;
  key?: string;
}

/**
 * What writing ad-hoc runs did: their ids (a key's existing run answers for it), or the first key
 * bound to another operation — the producer throws its error for it; nothing was written unless
 * another producer created the keyed run between the check and the add.
 */
export type AdHocOutcome<T> = { ids: T; conflict?: undefined } | { conflict: KeyConflict };

/**
 * Writes one ad-hoc run. Without a key: the add alone (the hot path, one round trip). With one:
 * the key's run id is deterministic, so while a run with that id exists (in any queue, or as a
 * record of a canceled/replayed run) no second one is created; calls racing past the check add one
 * BullMQ job (BullMQ deduplicates on the job id). One round trip to look and add, one more to read
 * an existing run.
 */
export function enqueueAdHoc(runs: Runs, { run, key }: AdHocItem): Promise<AdHocOutcome<string>> {
  if (key === undefined) return runs.enqueue(run).then(() => ({ ids: run.id }));
  return enqueueKeyed(runs, run, key);
}

// `.then`, not `async`/`await`: a new run (the common case) resolves straight from its add.
function enqueueKeyed(runs: Runs, run: NewRun, key: string): Promise<AdHocOutcome<string>> {
  return runs.enqueue(run).then(({ created }) => (created ? { ids: run.id } : existingFor(runs, run, key)));
}

/** A key whose run exists: that run's id, or the conflict when it is another operation. */
async function existingFor(runs: Runs, run: NewRun, key: string): Promise<AdHocOutcome<string>> {
  const existing = await runs.get(run.id);
  if (!existing) return { ids: run.id };
  const conflict = keyConflict(existing, run, key);
  return conflict ? { conflict } : { ids: existing.id };
}

/**
 * Writes many ad-hoc runs at once (one existence check and one BullMQ `addBulk` per queue), ids in
 * order. Keys are checked before anything is written: a key bound to another operation writes
 * nothing. A keyed run that exists answers its id, like {@link enqueueAdHoc}.
 */
export async function enqueueAdHocMany(runs: Runs, items: readonly AdHocItem[]): Promise<AdHocOutcome<string[]>> {
  const keyed = items.filter((p) => p.key !== undefined);
  const existing = keyed.length ? await runs.getMany(keyed.map((p) => p.run.id)) : [];
  const found = new Set<string>();
  for (let i = 0; i < keyed.length; i++) {
    const e = existing[i];
    if (!e) continue;
    const conflict = keyConflict(e, keyed[i]!.run, keyed[i]!.key!);
    if (conflict) return { conflict };
    found.add(keyed[i]!.run.id);
  }
  const fresh = items.filter((p) => !found.has(p.run.id));
  if (fresh.length) {
    const results = await runs.enqueueMany(fresh.map((p) => p.run));
    // A keyed run created between the check and the add by another producer: same checks as above.
    const raced = fresh.filter((p, i) => p.key !== undefined && !results[i]!.created);
    const views: (RunView | undefined | null)[] = raced.length ? await runs.getMany(raced.map((p) => p.run.id)) : [];
    for (let i = 0; i < raced.length; i++) {
      const conflict = views[i] && keyConflict(views[i]!, raced[i]!.run, raced[i]!.key!);
      if (conflict) return { conflict };
    }
  }
  return { ids: items.map((p) => p.run.id) };
}
