import { Injectable } from '@nestjs/common';
import { ROUTINE_COUNT_STATUSES, type RoutineRecord } from '@drover/core';
import { Clock } from '@drover/redis';
import { RoutineStore, RunStore, type RoutineState } from '@drover/store';
import { encodePageToken } from './page-token';
import { routineView, type RoutineAnswer } from './routine-view';

/** The `status` filter: a routine's own status, or `disabled` (stopped by the scheduler after launch failures). */
export const LIST_STATUSES = ROUTINE_COUNT_STATUSES;
export type ListStatus = (typeof LIST_STATUSES)[number];

export interface ListQuery {
  queue?: string;
  status?: ListStatus;
  /** Without a `status`, archived routines are listed only when asked for. */
  includeArchived?: boolean;
  /** `key=value`. */
  label?: { key: string; value: string };
  pageSize: number;
  /** The name the page starts after. */
  after?: string;
}

/** Candidates whose state is read per round of a `status` filter that needs it. */
const STATE_CHUNK = 200;

/**
 * Lists routines ordered by name with a cursor: filters on the definition first, then reads the
 * state (one pipelined round trip per chunk) and the newest run of the page's routines only.
 * `active` means active and not disabled; archived routines are hidden unless asked for.
 */
@Injectable()
export class RoutineListing {
  constructor(
    private readonly routines: RoutineStore,
    private readonly runs: RunStore,
    private readonly clock: Clock,
  ) {}

  async list(q: ListQuery): Promise<{ items: RoutineAnswer[]; next_page_token?: string }> {
    // Code-unit order (not the store's locale order), the same order the cursor compares in.
    const candidates = (await this.routines.list())
      .filter((r) => this.matchesDefinition(r, q))
      .sort((a, b) => (a.def.name < b.def.name ? -1 : a.def.name > b.def.name ? 1 : 0));
    const page: { rec: RoutineRecord; state: RoutineState }[] = [];
    let i = 0;
    while (i < candidates.length && page.length <= q.pageSize) {
      const chunk = candidates.slice(i, i + Math.max(STATE_CHUNK, q.pageSize + 1));
      i += chunk.length;
      const states = await this.routines.getStates(chunk.map((r) => r.def.name));
      for (const rec of chunk) {
        const state = states.get(rec.def.name)!;
        if (this.matchesState(state, q.status) && page.length <= q.pageSize) page.push({ rec, state });
      }
    }
    const more = page.length > q.pageSize;
    const shown = page.slice(0, q.pageSize);
    const now = this.clock.now();
    const items = await Promise.all(
      shown.map(async ({ rec, state }) => {
        const [last] = await this.runs.listByRoutine(rec.def.name, { limit: 1 });
        return routineView(rec, state, last, now);
      }),
    );
    return { items, ...(more && shown.length > 0 && { next_page_token: encodePageToken(shown.at(-1)!.rec.def.name) }) };
  }

  private matchesDefinition(r: RoutineRecord, q: ListQuery): boolean {
    const d = r.def;
    if (q.after !== undefined && d.name <= q.after) return false;
    if (q.queue !== undefined && d.queue !== q.queue) return false;
    if (q.label && d.labels[q.label.key] !== q.label.value) return false;
    if (q.status === 'paused' || q.status === 'archived') return d.status === q.status;
    if (q.status === 'active' || q.status === 'disabled') return d.status === 'active';
    return d.status !== 'archived' || !!q.includeArchived;
  }

  private matchesState(state: RoutineState, status: ListStatus | undefined): boolean {
    if (status === 'disabled') return !!state.disabledReason;
    if (status === 'active') return !state.disabledReason;
    return true;
  }
}
