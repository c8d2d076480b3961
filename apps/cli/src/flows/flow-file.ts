import type { operations } from '@drover/api-client';
import { FLOW_CHILD_FAILURES } from '@drover/core/words';
import { parseDuration } from '../args';
import { UsageError } from '../cli-error';

type FlowRun = NonNullable<operations['createFlow']['requestBody']>['content']['application/json']['runs'][number];

const FIELDS = new Set(['jobType', 'payload', 'queue', 'priority', 'maxAttempts', 'delay', 'onFailure', 'children']);

/**
 * A flow file (YAML or JSON) as `POST /flows` takes it. The file is the tree people write — a run
 * with `children`, each a run with its own — and the api takes a list in which each run names its
 * parent by index: the top run first, then each run's children after it, depth first.
 */
export function flowRunsOf(tree: unknown, name: string): FlowRun[] {
  const runs: FlowRun[] = [];
  const visit = (node: unknown, at: string, parent?: number): void => {
    if (typeof node !== 'object' || node === null || Array.isArray(node))
      throw new UsageError(`${name}: ${at} must be a run ({jobType, payload, children?, …})`);
    const n = node as Record<string, unknown>;
    const unknown = Object.keys(n).filter((k) => !FIELDS.has(k));
    if (unknown.length)
      throw new UsageError(`${name}: ${at}: unknown field ${unknown.map((k) => `"${k}"`).join(', ')}`);
    if (typeof n.jobType !== 'string') throw new UsageError(`${name}: ${at}.jobType is required (a job type name)`);
    if (n.onFailure !== undefined && !(FLOW_CHILD_FAILURES as readonly unknown[]).includes(n.onFailure))
      throw new UsageError(`${name}: ${at}.onFailure must be one of ${FLOW_CHILD_FAILURES.join(', ')}`);
    if (parent === undefined && n.onFailure !== undefined)
      throw new UsageError(`${name}: ${at}.onFailure is a child's (the top run has no parent)`);
    if (n.children !== undefined && !Array.isArray(n.children))
      throw new UsageError(`${name}: ${at}.children must be a list of runs`);
    const run: FlowRun = { jobType: n.jobType, payload: n.payload ?? {} };
    if (n.queue !== undefined) run.queue = n.queue as string;
    if (n.priority !== undefined) run.priority = n.priority as FlowRun['priority'];
    if (n.maxAttempts !== undefined) run.maxAttempts = n.maxAttempts as number;
    if (n.delay !== undefined) run.delayMs = parseDuration(String(n.delay), `${at}.delay`);
    if (parent !== undefined) run.parent = parent;
    if (n.onFailure !== undefined) run.onFailure = n.onFailure as FlowRun['onFailure'];
    const index = runs.push(run) - 1;
    (n.children as unknown[] | undefined)?.forEach((c, i) => visit(c, `${at}.children[${i}]`, index));
  };
  visit(tree, 'the top run');
  return runs;
}
