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
 * pages by a cursor. A page reads what the pages before it read plus one page (never more than
 * the 1000 newest), so paging deeper costs more and ends at the listing's ceiling.
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
    const listing =
      q.routine !== undefined
        ? await this.runs.listByRoutine(q.routine, { limit: depth, ...(q.status && { status: q.status }) })
        : await this.runs.listRecent({
            limit: depth,
            ...(q.queue && { queue: q.queue }),
            ...(q.status && { status: q.status }),
          });
    const keep = (v: RunView) =>
      (q.jobType === undefined || v.jobType === q.jobType) && (q.queue === undefined || v.queue === q.queue);
    const page = pageOfRuns(listing, { ...(cursor && { cursor }), pageSize: q.pageSize, depth, keep });
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
