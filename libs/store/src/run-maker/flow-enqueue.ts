import { InvalidOptionsError, type FlowChildFailure } from '@drover/core';
import type { NewFlow, RunFlows } from '../runs/run-flows';
import type { AdHocItem } from './ad-hoc-enqueue';

/** One run of a flow to write, checked and built by its producer, and the runs it waits for. */
export interface FlowItem {
  item: AdHocItem;
  /** How an error names this run (default: its place in the tree, `children.0.children.2`). */
  at?: string;
  /** A child's: what its failure does to its parent (default `fail`). */
  onFailure?: FlowChildFailure;
  children?: FlowItem[];
}

/** The ids of a written flow, in the shape it was given. */
export interface FlowRunIds {
  id: string;
  children?: FlowRunIds[];
}

/**
 * Writes a flow of checked ad-hoc runs (the client's enqueueFlow, `POST /flows`) in one transaction
 * and answers its ids. Runs of a flow take no idempotency key: the flow is one operation, and
 * writing it again makes another.
 *
 * @throws InvalidOptionsError (a run with an idempotency key, or a shape core's flowShapeIssues
 *   refuses), InvalidPayloadError, UnknownQueueError, RedisOutOfMemoryError
 */
export async function enqueueFlow(flows: Pick<RunFlows, 'add'>, root: FlowItem): Promise<FlowRunIds> {
  const keyed: string[] = [];
  const toFlow = (node: FlowItem, path: string): NewFlow => {
    const at = node.at ?? (path || 'the top run');
    if (node.item.key !== undefined) keyed.push(`${at}: idempotencyKey: runs of a flow take none`);
    const children = (node.children ?? []).map((c, i) => toFlow(c, path ? `${path}.children.${i}` : `children.${i}`));
    return {
      run: node.item.run,
      ...(node.at !== undefined && { at: node.at }),
      ...(node.onFailure && { onFailure: node.onFailure }),
      ...(children.length && { children }),
    };
  };
  const flow = toFlow(root, '');
  if (keyed.length) throw new InvalidOptionsError('enqueueFlow', keyed);
  await flows.add(flow);
  return idsOf(flow);
}

function idsOf(node: NewFlow): FlowRunIds {
  return { id: node.run.id, ...(node.children?.length && { children: node.children.map(idsOf) }) };
}
