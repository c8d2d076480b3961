import type { FlowChildFailure } from './flow-words';
import type { ParkReason } from '../policy/retry.policy';

/** At most this many runs in one flow (the parent included): it is written in one Redis transaction. */
export const MAX_FLOW_RUNS = 1_000;

/** At most this many levels below the top run: a parent's wait is read level by level. */
export const MAX_FLOW_DEPTH = 10;

/** The default of a child's `onFailure`: a parent does not run on a failed child's behalf. */
export const DEFAULT_FLOW_CHILD_FAILURE: FlowChildFailure = 'fail';

/** The park reason of a parent whose child failed with `onFailure: fail`: its handler never ran. */
export const CHILD_FAILED_REASON = 'child-failed' satisfies ParkReason;

/** The shape of a flow as its checks see it: each run's queue and what would hold it back, and its children. */
export interface FlowShape {
  queue: string;
  /** How an issue names this run (default: its place in the tree, `children.0.children.2`). */
  at?: string;
  /** Enqueued with a delay or a run-at. */
  delayed?: boolean;
  /** Its queue (or routine) requires approval. */
  gated?: boolean;
  /** Its queue limits runs per concurrency key. */
  keyed?: boolean;
  children?: readonly FlowShape[];
}

/**
 * What is wrong with a flow's shape, each issue naming where (`children.0.children.2`): too many
 * runs or levels, or a parent held back by something other than its children. A parent starts when
 * its children finished: a delay or an approval gate on it would count from then, so neither is
 * taken (a leaf may be gated: its parent waits for the decision). No run of a flow takes a
 * concurrency key: a keyed run is held per key, and a held parent never learns its children finished.
 * `oneQueue`: every run must be in the top run's queue (on Redis Cluster a queue is its own hash slot,
 * and a child's end updates its parent in one script).
 */
export function flowShapeIssues(root: FlowShape, opts: { oneQueue?: boolean } = {}): string[] {
  const issues: string[] = [];
  let count = 0;
  const visit = (node: FlowShape, path: string, depth: number): void => {
    count++;
    const at = node.at ?? (path || 'the top run');
    if (depth > MAX_FLOW_DEPTH) {
      issues.push(`${at}: a flow has at most ${MAX_FLOW_DEPTH} levels below its top run`);
      return;
    }
    const parent = (node.children?.length ?? 0) > 0;
    if (parent && node.delayed)
      issues.push(`${at}: a parent starts when its children finish; delay its children instead`);
    if (parent && node.gated)
      issues.push(`${at}: queue ${node.queue} requires approval; in a flow only runs without children may be gated`);
    if (node.keyed) issues.push(`${at}: queue ${node.queue} limits runs per concurrency key; a flow's runs take none`);
    if (opts.oneQueue && node.queue !== root.queue)
      issues.push(`${at}: on Redis Cluster every run of a flow is in one queue (${root.queue}), not ${node.queue}`);
    node.children?.forEach((c, i) => visit(c, path ? `${path}.children.${i}` : `children.${i}`, depth + 1));
  };
  visit(root, '', 0);
  if (count > MAX_FLOW_RUNS) issues.unshift(`a flow has at most ${MAX_FLOW_RUNS} runs, not ${count}`);
  return issues;
}

/** How many runs a flow holds, its top run included. */
export function flowSize(root: { children?: readonly unknown[] }): number {
  let n = 1;
  for (const c of (root.children ?? []) as { children?: readonly unknown[] }[]) n += flowSize(c);
  return n;
}
