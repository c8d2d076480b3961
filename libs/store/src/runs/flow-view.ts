import type { FlowChildFailure, RunStatus } from '@drover/core';
import type { RunJobData } from './run-job-data';

/** A child as its parent's view lists it: `status` is read with the parent alone, never in a listing. */
export interface FlowChildView {
  id: string;
  queue: string;
  jobType: string;
  /** Absent in a listing, and for a child gone without a record (removed by its queue's retention). */
  status?: RunStatus;
  /** What its failure does to this parent; read with the parent alone, like `status`. */
  onFailure?: FlowChildFailure;
  /** How many children of its own it has (0 for a leaf); read with the parent alone, like `status`. */
  children?: number;
}

/** A run's place in a flow: its parent, what its failure does to that parent, its children. */
export interface RunFlowView {
  parent?: { id: string; queue: string };
  /** A child's: whether its failure parks its parent (`fail`) or is left for the parent to read (`ignore`). */
  onFailure?: FlowChildFailure;
  children?: FlowChildView[];
}

/** The flow part of a run's view, from its record; undefined for a run outside any flow. */
export function flowViewOf(d: Pick<RunJobData, 'fc' | 'fp' | 'fi'>): RunFlowView | undefined {
  if (!d.fc && !d.fp) return undefined;
  const flow: RunFlowView = {};
  if (d.fp) flow.parent = { queue: d.fp[0], id: d.fp[1] };
  if (d.fp) flow.onFailure = d.fi ? 'ignore' : 'fail';
  if (d.fc) flow.children = d.fc.map(([queue, id, jobType]) => ({ id, queue, jobType }));
  return flow;
}

/**
 * The child whose failure parked this parent, from BullMQ's deferred failure (`child <its job key>
 * failed`): the parent's worker fails it without running its handler.
 */
export function failedChildOf(d: Pick<RunJobData, 'fc'>, failedReason: string | undefined): FlowChildView | undefined {
  if (!d.fc || !failedReason?.startsWith('child ') || !failedReason.endsWith(' failed')) return undefined;
  const key = failedReason.slice('child '.length, -' failed'.length);
  const hit = d.fc.find(([, id]) => key.endsWith(`:${id}`));
  return hit && { queue: hit[0], id: hit[1], jobType: hit[2] };
}
