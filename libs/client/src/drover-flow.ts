import type { FlowChildFailure } from '@drover/core';
import type { FlowChildOutcome, FlowRunIds } from '@drover/store';
import type { EnqueueItem } from './drover-client.service';

/**
 * A flow for {@link DroverClient.enqueueFlow}: a run (as `enqueueMany` takes it) and the runs it waits
 * for. Each child may have children of its own.
 */
export interface FlowNode extends EnqueueItem {
  /** A child's: `fail` (default) parks its parent when it is parked; `ignore` lets the parent run and read the failure. */
  onFailure?: FlowChildFailure;
  children?: FlowNode[];
}

/** The ids of an enqueued flow, in the shape it was given. */
export type DroverFlowIds = FlowRunIds;

/** How a child ended, as its parent's handler reads it (`ctx.children()` in `@drover/worker`). */
export type DroverFlowChild = FlowChildOutcome;
