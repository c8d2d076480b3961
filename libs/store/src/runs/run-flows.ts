import { FlowProducer, type FlowJob, type FlowJobNode, type Job } from 'bullmq';
import {
  approvalFor,
  flowShapeIssues,
  InvalidOptionsError,
  RedisOutOfMemoryError,
  type FlowChildFailure,
  type FlowShape,
  type Queue,
  type RunStatus,
} from '@drover/core';
import type { RedisConnections } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import { CompactJob } from '../queues/compact-queue';
import type { QueuePolicyCache } from '../queues/queue-policy-cache';
import type { QueueRegistry } from '../queues/queue-registry.store';
import type { FlowChildView } from './flow-view';
import type { NewRun } from './new-run';
import { isDefaultRank } from './run-ids';
import { isCanceledMarker, runJobDataOf, type RunJobData } from './run-job-data';
import type { RunTombstones } from './run-tombstones';
import type { RunView } from './run-view';
import type { RunWriter } from './run-writer';

/** A flow to write: a run, and the runs it waits for. */
export interface NewFlow {
  run: NewRun;
  /** How an error names this run (see core's FlowShape). */
  at?: string;
  /** A child's: what its failure does to its parent (default `fail`). */
  onFailure?: FlowChildFailure;
  children?: NewFlow[];
}

/** How a finished child ended, as its parent's handler reads it (`ctx.children()`). */
export interface FlowChildOutcome {
  id: string;
  queue: string;
  jobType: string;
  /** `unknown`: a child with neither a result nor a record (never expected; reported, not hidden). */
  status: 'succeeded' | 'canceled' | 'parked' | 'unknown';
  /** A succeeded child's result. */
  result?: unknown;
  /** A parked child's failure; a canceled one's reason. */
  error?: string;
  reason?: string;
}

/** A FlowProducer whose jobs are stored like every other run's ({@link CompactJob}). */
class CompactFlowProducer extends FlowProducer {
  protected override get Job(): typeof Job {
    return CompactJob as unknown as typeof Job;
  }
}

type Policies = Map<string, { def: Queue; ranked: boolean }>;

/**
 * Flows: a run that starts once the runs it waits for (its children, on any queues) finished, built
 * on BullMQ's FlowProducer (one transaction writes the whole tree, each parent in BullMQ's
 * waiting-children state). Each run is built as any run is (RunWriter.job), plus its place in the
 * flow in its record (`fc` / `fp` / `fi`). A failed child parks its parent (BullMQ's
 * `failParentOnFailure`: the parent's worker fails it without running it) or is ignored
 * (`ignoreDependencyOnFailure`: the parent runs and reads the failure).
 */
export class RunFlows {
  private producer?: CompactFlowProducer;

  constructor(
    private readonly deps: {
      connections: RedisConnections;
      bull: BullQueues;
      registry: QueueRegistry;
      queues: QueuePolicyCache;
      writer: RunWriter;
      tombstones: RunTombstones;
      view(queue: string, id: string): Promise<RunView | undefined>;
    },
  ) {}

  /**
   * Writes a flow, all of it or nothing. Every run is checked first: its payload, its queue, and
   * the flow's shape (core's flowShapeIssues).
   *
   * @throws InvalidPayloadError, InvalidOptionsError, UnknownQueueError, RedisOutOfMemoryError
   */
  async add(flow: NewFlow): Promise<void> {
    const policies: Policies = new Map();
    const shape = await this.shapeOf(flow, policies);
    const issues = flowShapeIssues(shape, { oneQueue: this.deps.connections.isCluster });
    if (issues.length) throw new InvalidOptionsError('enqueueFlow', issues);
    await this.markRanked([flow], policies);
    const wait = this.deps.connections.replicaWait;
    const ticket = wait.enabled ? wait.begin() : undefined;
    await this.flowProducer()
      .add(this.tree(flow, policies) as FlowJob)
      .catch(RedisOutOfMemoryError.rethrow);
    if (ticket) await wait.confirm(ticket, `flow ${flow.run.id}`);
  }

  /** Checks each run's payload and reads its queue's policy: the shape core's flowShapeIssues checks. */
  private async shapeOf(node: NewFlow, policies: Policies): Promise<FlowShape> {
    this.deps.writer.checkPayload(node.run);
    const policy = await this.policyOf(node.run.queue, policies);
    const children = await Promise.all((node.children ?? []).map((c) => this.shapeOf(c, policies)));
    return {
      queue: node.run.queue,
      ...(node.at !== undefined && { at: node.at }),
      delayed: !!node.run.delayMs && node.run.delayMs > 0,
      gated: !!(policy.def.approval || node.run.approval) && !!approvalFor(policy.def.approval, node.run.approval),
      keyed: !!policy.def.concurrencyKey,
      ...(children.length && { children }),
    };
  }

  /** Marks ranked each queue that receives a run of another rank than the default (see RunWriter.enqueueMany). */
  private async markRanked(nodes: readonly NewFlow[], policies: Policies): Promise<void> {
    for (const [queue, facts] of policies) {
      if (facts.ranked || !nodes.some((n) => this.someRanked(n, queue))) continue;
      await this.deps.queues.markRanked(queue);
      facts.ranked = true;
    }
  }

  private async policyOf(queue: string, policies: Policies): Promise<{ def: Queue; ranked: boolean }> {
    let facts = policies.get(queue);
    if (!facts) {
      const cached = await this.deps.queues.get(queue);
      facts = { def: cached.def ?? (await this.deps.registry.require(queue)), ranked: cached.ranked };
      policies.set(queue, facts);
    }
    return facts;
  }

  private someRanked(node: NewFlow, queue: string): boolean {
    if (node.run.queue === queue && !isDefaultRank(node.run.source, node.run.priority ?? 0)) return true;
    return (node.children ?? []).some((c) => this.someRanked(c, queue));
  }

  /** The BullMQ flow of a checked flow: each node the job RunWriter makes of its run, and its place. */
  private tree(node: NewFlow, policies: Policies, parent?: { queue: string; id: string }): FlowJob | FlowJobNode {
    const facts = policies.get(node.run.queue)!;
    const { name, data, opts } = this.deps.writer.job(node.run, facts.def, facts.ranked);
    const record: RunJobData = data;
    const children = node.children ?? [];
    if (children.length) record.fc = children.map((c) => [c.run.queue, c.run.id, c.run.jobType]);
    if (parent) {
      record.fp = [parent.queue, parent.id];
      if (node.onFailure === 'ignore') record.fi = 1;
    }
    const failure = !parent
      ? {}
      : node.onFailure === 'ignore'
        ? { ignoreDependencyOnFailure: true }
        : { failParentOnFailure: true };
    return {
      name,
      queueName: this.deps.bull.keys.bullQueueName(node.run.queue),
      data: record,
      opts: { ...opts, ...failure },
      ...(children.length && { children: children.map((c) => this.tree(c, policies, node.run) as FlowJobNode) }),
    } as FlowJob;
  }

  /**
   * Adds children to a running run (`ctx.addChildren`), each with its own children if given, in one
   * transaction, and lists them in the parent's record first (so a child that ends at once is one
   * the parent reads). The parent then waits for them with BullMQ's moveToWaitingChildren.
   *
   * @throws InvalidPayloadError, InvalidOptionsError (a parent on a queue with concurrency keys, a
   *   shape core's flowShapeIssues refuses), UnknownQueueError, RedisOutOfMemoryError
   */
  async addChildren(queue: string, parent: Job, children: NewFlow[]): Promise<void> {
    const policies: Policies = new Map();
    const parentPolicy = await this.policyOf(queue, policies);
    const shapes = await Promise.all(children.map((c) => this.shapeOf(c, policies)));
    const shape: FlowShape = { queue, keyed: !!parentPolicy.def.concurrencyKey, children: shapes };
    const issues = flowShapeIssues(shape, { oneQueue: this.deps.connections.isCluster });
    if (issues.length) throw new InvalidOptionsError('addChildren', issues);
    await this.markRanked(children, policies);
    const data = runJobDataOf(parent.data);
    const listed: [string, string, string][] = children.map((c) => [c.run.queue, c.run.id, c.run.jobType]);
    await parent.updateData({ ...data, fc: [...(data.fc ?? []), ...listed] });
    const ref = { id: parent.id!, queue: parent.queueQualifiedName };
    const flows = children.map((c) => {
      const node = this.tree(c, policies, { queue, id: parent.id! }) as FlowJob;
      return { ...node, opts: { ...node.opts, parent: ref } } as FlowJob;
    });
    const wait = this.deps.connections.replicaWait;
    const ticket = wait.enabled ? wait.begin() : undefined;
    await this.flowProducer().addBulk(flows).catch(RedisOutOfMemoryError.rethrow);
    if (ticket) await wait.confirm(ticket, `children of ${parent.id}`);
  }

  private flowProducer(): CompactFlowProducer {
    this.producer ??= new CompactFlowProducer({
      connection: this.deps.connections.command,
      prefix: this.deps.bull.keys.bullPrefix,
    });
    return this.producer;
  }

  /**
   * The parent's children with their statuses (for the run read alone): each child's own view, its
   * record if it left BullMQ (canceled before it started), or no status when both are gone.
   */
  async describe(children: readonly FlowChildView[]): Promise<FlowChildView[]> {
    return Promise.all(
      children.map(async (c) => {
        const view = (await this.deps.view(c.queue, c.id)) ?? (await this.deps.tombstones.get(c.id));
        if (!view) return c;
        const described: FlowChildView = { ...c, status: view.status as RunStatus };
        if (view.flow?.onFailure) described.onFailure = view.flow.onFailure;
        described.children = view.flow?.children?.length ?? 0;
        return described;
      }),
    );
  }

  /**
   * How each child of a running parent ended, in the order given: from BullMQ's record of its
   * finished children (results, ignored failures), which outlives the children's own retention, and
   * from the record a child canceled before it started leaves.
   */
  async outcomes(
    parent: Pick<Job, 'data' | 'getChildrenValues' | 'getIgnoredChildrenFailures'>,
  ): Promise<FlowChildOutcome[]> {
    const fc = runJobDataOf(parent.data).fc ?? [];
    if (!fc.length) return [];
    const [values, failures] = await Promise.all([parent.getChildrenValues(), parent.getIgnoredChildrenFailures()]);
    const byId = (from: Record<string, unknown>) => {
      const out = new Map<string, unknown>();
      for (const [key, v] of Object.entries(from)) out.set(key.slice(key.lastIndexOf(':') + 1), v);
      return out;
    };
    const done = byId(values);
    const failed = byId(failures);
    return Promise.all(
      fc.map(async ([queue, id, jobType]): Promise<FlowChildOutcome> => {
        const base = { id, queue, jobType };
        if (done.has(id)) {
          const value = done.get(id);
          if (isCanceledMarker(value)) return { ...base, status: 'canceled', reason: value.$droverCanceled.reason };
          return { ...base, status: 'succeeded', result: value ?? null };
        }
        if (failed.has(id)) return { ...base, status: 'parked', error: String(failed.get(id)) };
        const record = await this.deps.tombstones.get(id);
        if (record?.status === 'canceled') return { ...base, status: 'canceled', reason: record.reason ?? 'canceled' };
        return { ...base, status: 'unknown' };
      }),
    );
  }

  async close(): Promise<void> {
    await this.producer?.close().catch(() => undefined);
  }
}
