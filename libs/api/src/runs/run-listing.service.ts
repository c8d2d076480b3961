import { Injectable } from '@nestjs/common';
import {
  inTimeWindow,
  parseTimeBound,
  runMatches,
  SEARCH_SCAN_LIMIT,
  TIME_BOUND_HINT,
  type RunFilter,
  type RunStatus,
} from '@drover/core';
import { Clock } from '@drover/redis';
import { QueueRegistry, RoutineStore, RunStore, UnknownQueueError, type RunView } from '@drover/store';
import { ProblemError } from '../http/problem';
import { decodeCursor, encodeCursor, listingDepth, MAX_LISTING_DEPTH, pageOfRuns } from './run-paging';

export interface RunListQuery {
  queue?: string;
  status?: RunStatus;
  routine?: string;
  jobType?: string;
  /** Created at or after / at or before: an ISO 8601 instant or a duration ago (`2h`), see parseTimeBound. */
  since?: string;
  until?: string;
  search?: RunFilter['search'];
  /** Also list runs of `system` routines (scheduled housekeeping); hidden otherwise unless `routine` names one. */
  includeSystem?: boolean;
  pageSize: number;
  pageToken?: string;
}

export interface RunListPage {
  items: RunView[];
  next?: string;
  /** Runs read to fill the page. */
  scanned: number;
  /** The page stopped after reading {@link SEARCH_SCAN_LIMIT} runs: narrow the window, or follow `next`. */
  scanLimitReached: boolean;
}

/** Runs a search loads per read (one lean read per hundred jobs: see readLeanJobs). */
const SEARCH_BATCH = 100;

/**
 * `GET /runs`: the store's newest-first listings (a routine's index, or the queues' jobs) cut into
 * pages by a cursor. A page lists the references of what the pages before it listed plus one page
 * (never more than the 1000 newest), so paging deeper costs more and ends at the listing's
 * ceiling; but it reads only the runs after the cursor that it shows (plus those a filter refuses),
 * each lean (see readLeanJobs): a page of 100 runs with 512 KiB payloads loads no payload.
 *
 * A time window is applied to the references (creation times) before any run is read. A search
 * has no index: it reads the listing's runs newest first, at most {@link SEARCH_SCAN_LIMIT} per
 * page, and the page says when it stopped there. Runs of `system` routines are hidden unless asked.
 */
@Injectable()
export class RunListing {
  constructor(
    private readonly runs: RunStore,
    private readonly registry: QueueRegistry,
    private readonly routines: RoutineStore,
    private readonly clock: Clock,
  ) {}

  async page(q: RunListQuery): Promise<RunListPage> {
    const cursor = q.pageToken === undefined ? undefined : decodeCursor(q.pageToken);
    if (q.pageToken !== undefined && !cursor) {
      const message = 'is not a page token from next_page_token';
      throw new ProblemError(400, `invalid request: query.page_token ${message}`, [
        { path: 'query.page_token', message },
      ]);
    }
    const window = this.windowOf(q);
    if (q.queue !== undefined) await this.requireQueue(q.queue);
    const windowed = window.since !== undefined || window.until !== undefined;
    const searching = q.search !== undefined;
    // A window or a search reads the whole bounded listing: the newest runs may all be outside it.
    const depth = windowed || searching ? MAX_LISTING_DEPTH : listingDepth(cursor, q.pageSize);
    const hideSystem = !q.includeSystem && q.routine === undefined;
    const system = new Set<string>();
    const known = new Set<string>();
    const keep = (v: RunView) =>
      (q.status === undefined || v.status === q.status) &&
      (q.jobType === undefined || v.jobType === q.jobType) &&
      (q.queue === undefined || v.queue === q.queue) &&
      !(hideSystem && v.routine !== null && system.has(v.routine)) &&
      runMatches(v, { ...(q.search && { search: q.search }) });
    // Which routines of the runs just read are `system` ones (one read per batch, for names not seen yet).
    const marking =
      <E>(load: (refs: E[]) => Promise<(RunView | undefined)[]>) =>
      async (refs: E[]) => {
        const views = await load(refs);
        if (!hideSystem) return views;
        const fresh = [...new Set(views.flatMap((v) => (v?.routine ? [v.routine] : [])))].filter((n) => !known.has(n));
        fresh.forEach((n) => known.add(n));
        if (fresh.length)
          for (const [name, r] of await this.routines.getMany(fresh)) if (r.def.system) system.add(name);
        return views;
      };
    const paging = {
      ...(cursor && { cursor }),
      pageSize: q.pageSize,
      depth,
      keep,
      ...(windowed && { admit: (e: { createdAt: number }) => inTimeWindow(e.createdAt, window) }),
      ...(searching && { scanLimit: SEARCH_SCAN_LIMIT, batch: SEARCH_BATCH }),
    };
    // References first (ids and creation times), then only the runs the page shows, each read lean.
    const page =
      q.routine !== undefined
        ? await pageOfRuns(await this.runs.routineRunRefs(q.routine, depth), {
            ...paging,
            load: marking((refs) => this.runs.loadRuns(refs)),
          })
        : await pageOfRuns(
            // The window before the cut: with `until`, ended runs older than the newest are listed too.
            (
              await this.runs.recentRunRefs({
                limit: depth,
                ...(q.queue && { queue: q.queue }),
                ...(q.status && { status: q.status }),
                ...(window.until !== undefined && { until: window.until }),
              })
            )
              .filter((r) => inTimeWindow(r.createdAt, window))
              .slice(0, depth),
            { ...paging, load: marking((refs) => this.runs.loadRecent(refs)) },
          );
    return {
      items: page.items,
      ...(page.next && { next: encodeCursor(page.next) }),
      scanned: page.scanned,
      scanLimitReached: page.scanLimitReached,
    };
  }

  /** The creation window in epoch ms (`2h` read against the cluster clock); 400 for a bound that is none, or an empty window. */
  private windowOf(q: RunListQuery): { since?: number; until?: number } {
    const now = this.clock.now();
    const bound = (name: 'since' | 'until'): number | undefined => {
      const text = q[name];
      if (text === undefined) return undefined;
      const at = parseTimeBound(text, now);
      if (at === undefined) bad(name, `is not ${TIME_BOUND_HINT}`);
      return at;
    };
    const [since, until] = [bound('since'), bound('until')];
    if (since !== undefined && until !== undefined && since > until) bad('until', 'is before since');
    return { ...(since !== undefined && { since }), ...(until !== undefined && { until }) };
  }

  /** A filter naming an undefined queue is a bad field (400), as in `POST /jobs`. */
  private async requireQueue(queue: string): Promise<void> {
    try {
      await this.registry.require(queue);
    } catch (err) {
      if (!(err instanceof UnknownQueueError)) throw err;
      throw new ProblemError(400, `invalid request: query.queue ${err.message}`, [
        { path: 'query.queue', message: err.message },
      ]);
    }
  }
}

function bad(name: string, message: string): never {
  throw new ProblemError(400, `invalid request: query.${name} ${message}`, [{ path: `query.${name}`, message }]);
}
