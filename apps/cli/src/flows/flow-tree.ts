import { ok } from '@drover/api-client';
import type { CliContext } from '../context';
import type { Run } from '../runs/run-columns';

/** A run of a flow and its subtree, as read from the api. */
export interface FlowTreeNode {
  run: Pick<Run, 'id' | 'jobType' | 'queue' | 'status' | 'reason' | 'waitingForChildren'>;
  children: FlowTreeNode[];
}

/** At most this many runs are read for one tree (a flow's limit): each is one GET. */
const MAX_TREE_RUNS = 1000;

/** Reads a run and every run below it, one level at a time (a level's runs together). */
export async function readFlowTree(ctx: CliContext, id: string): Promise<FlowTreeNode> {
  const read = async (runId: string) => ok(ctx.api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }));
  const root: FlowTreeNode = { run: await read(id), children: [] };
  let level: { node: FlowTreeNode; ids: string[] }[] = [{ node: root, ids: childIds(root.run) }];
  let read_ = 1;
  while (level.length && read_ < MAX_TREE_RUNS) {
    const next: typeof level = [];
    for (const { node, ids } of level) {
      const runs = await Promise.all(ids.slice(0, MAX_TREE_RUNS - read_).map(read));
      read_ += runs.length;
      for (const run of runs) {
        const child: FlowTreeNode = { run, children: [] };
        node.children.push(child);
        next.push({ node: child, ids: childIds(run) });
      }
    }
    level = next;
  }
  return root;
}

function childIds(run: FlowTreeNode['run']): string[] {
  return ((run as Run).flow?.children ?? []).map((c) => c.id);
}

/** The tree for people: one line per run, indented under its parent. */
export function renderFlowTree(ctx: CliContext, root: FlowTreeNode): string {
  const lines: string[] = [];
  const line = (n: FlowTreeNode) =>
    `${ctx.colors.bold(n.run.id)}  ${n.run.jobType}  ${ctx.colors.dim(n.run.queue)}  ${runState(ctx, n.run)}`;
  const walk = (n: FlowTreeNode, prefix: string) => {
    n.children.forEach((c, i) => {
      const last = i === n.children.length - 1;
      lines.push(`${prefix}${last ? '└─ ' : '├─ '}${line(c)}`);
      walk(c, prefix + (last ? '   ' : '│  '));
    });
  };
  lines.push(line(root));
  walk(root, '');
  return lines.join('\n') + '\n';
}

/** A run's status for people, with why it waits or ended. */
export function runState(ctx: CliContext, run: FlowTreeNode['run']): string {
  const waiting = run.waitingForChildren ? ' (waiting for its children)' : '';
  return ctx.colors.status(run.status) + waiting + (run.reason ? ` — ${run.reason}` : '');
}

/** A parent's children for `runs get`: one line each, in the order given. */
export function renderChildren(ctx: CliContext, run: Run): string {
  const children = run.flow?.children ?? [];
  if (!children.length) return '';
  const lines = ['', ctx.colors.bold('children')];
  for (const c of children) {
    const status = c.status ? ctx.colors.status(c.status) : ctx.colors.dim('(gone)');
    const notes = [
      ...(c.onFailure === 'ignore' ? ['its failure is ignored'] : []),
      ...(c.children ? [`${c.children} ${c.children === 1 ? 'child' : 'children'}`] : []),
    ];
    const tail = notes.length ? ctx.colors.dim(`  (${notes.join('; ')})`) : '';
    lines.push(`  ${c.id}  ${c.jobType}  ${ctx.colors.dim(c.queue)}  ${status}${tail}`);
  }
  return lines.join('\n') + '\n';
}

/** The `parent` line of a child for `runs get`. */
export function parentLine(run: Run): string {
  const p = run.flow?.parent;
  if (!p) return '';
  const onFailure = run.flow?.onFailure === 'ignore' ? 'its failure is ignored' : 'its failure parks the parent';
  return `${p.id} (queue ${p.queue}; ${onFailure})`;
}
