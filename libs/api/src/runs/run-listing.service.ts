import { Injectable } from '@nestjs/common';
import type { RunStatus } from '@drover/core';
import { QueueRegistry, RunStore, UnknownQueueError, type RunView } from '@drover/store';
import { ProblemError } from '../http/problem';
import { decodeCursor, encodeCursor, listingDepth, pageOfRuns } from './run-paging';

export interface RunListQuery {
  queue?: string;
  status?: RunStatus;
  routine?: string;
  jobType?: string;
  pageSize: number;
  pageToken?: string;
}

/**
 * `GET /runs`: the store's newest-first listings (a routine's index, or the queues' jobs) cut into
 * pages by a cursor. A page lists the references of what the pages before it listed plus one page
 * (never more than the 1000 newest), so paging deeper costs more and ends at the listing's
 * ceiling; but it reads only the runs after the cursor that it shows (plus those a filter refuses),
 * each lean (see readLeanJobs): a page of 100 runs with 512 KiB payloads loads no payload.
 */
@Injectable()
export class RunListing {
  constructor(
    private readonly runs: RunStore,
    private readonly registry: QueueRegistry,
  ) {}

  async page(q: RunListQuery): Promise<{ items: RunView[]; next?: string }> {
    const cursor = q.pageToken === undefined ? undefined : decodeCursor(q.pageToken);
    if (q.pageToken !== undefined && !cursor) {
      const message = 'is not a page token from next_page_token';
      throw new ProblemError(400, `invalid request: query.page_token ${message}`, [
        { path: 'query.page_token', message },
      ]);
    }
    if (q.queue !== undefined) await this.requireQueue(q.queue);
    const depth = listingDepth(cursor, q.pageSize);
    const keep = (v: RunView) =>
      (q.status === undefined || v.status === q.status) &&
      (q.jobType === undefined || v.jobType === q.jobType) &&
      (q.queue === undefined || v.queue === q.queue);
    const paging = { ...(cursor && { cursor }), pageSize: q.pageSize, depth, keep };
    // References first (ids and creation times), then only the runs the page shows, each read lean.
    const page =
      q.routine !== undefined
        ? await pageOfRuns(await this.runs.routineRunRefs(q.routine, depth), {
            ...paging,
            load: (refs) => this.runs.loadRuns(refs),
          })
        : await pageOfRuns(
            (
              await this.runs.recentRunRefs({
                limit: depth,
                ...(q.queue && { queue: q.queue }),
                ...(q.status && { status: q.status }),
              })
            ).slice(0, depth),
            { ...paging, load: (refs) => this.runs.loadRecent(refs) },
          );
    return { items: page.items, ...(page.next && { next: encodeCursor(page.next) }) };
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
