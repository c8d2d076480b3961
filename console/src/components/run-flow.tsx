import { useEffect, useRef, useState } from 'preact/hooks';
import { ACTIVE_RUN_STATUSES } from '@drover/core/words';
import { api, ok, type Run } from '../api';
import { useLiveReload, type LiveEvent } from '../live';
import { useResource } from '../resource';
import { ErrorNote, RunLink, Status } from './bits';

type Child = NonNullable<NonNullable<Run['flow']>['children']>[number];

/**
 * Children listed per level of the tree: a flow may hold 1,000 runs, and each level opened is one
 * read of its parent (`drover flows tree` prints every run).
 */
const SHOWN_CHILDREN = 100;

const readRun = (id: string) => ok(api.GET('/api/v1/runs/{id}', { params: { path: { id } } }));

/** A status change of one of `children`: their parent's view is re-read. */
const touches = (children: Child[]) => (e: LiveEvent) => e.action === 'status' && children.some((c) => c.id === e.id);

/** The child whose parking parked this parent: its error message names it. */
function failedChild(run: Run): Child | undefined {
  if (run.reason !== 'child-failed' || !run.error) return undefined;
  return run.flow?.children?.find((c) => run.error!.message.includes(c.id));
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * A run's place in a flow, as facts of the run page: its parent and what its failure does there;
 * its children as a tree (deeper levels read when opened), how many it still waits for, and the
 * child that parked it. Its own stream reports only the run's status changes, so the children's
 * changes (from the cluster feed) re-read the run.
 */
export function RunFlowFacts({ run: given }: { run: Run }) {
  const [reread, setReread] = useState<Run>();
  // Reads may answer out of order (one slow, the next quick): only the newest asked is kept, and
  // none asked before the run itself changed.
  const asked = useRef(0);
  useEffect(() => {
    asked.current++;
    setReread(undefined);
  }, [given]);
  const run = reread?.id === given.id ? reread : given;
  const children = run.flow?.children ?? [];
  useLiveReload(
    ['run'],
    () => {
      const mine = ++asked.current;
      void readRun(given.id).then(
        (r) => mine === asked.current && setReread(r),
        () => undefined,
      );
    },
    touches(children),
  );
  const parent = run.flow?.parent;
  const failed = failedChild(run);
  const pending = children.filter((c) => c.status && ACTIVE_RUN_STATUSES.includes(c.status)).length;
  return (
    <>
      {parent && (
        <>
          <dt>parent</dt>
          <dd data-testid="run-parent">
            <RunLink id={parent.id} /> <span class="muted">on {parent.queue}</span> ·{' '}
            {run.flow?.onFailure === 'ignore'
              ? 'its failure is ignored (the parent runs and reads it)'
              : 'its failure parks the parent'}
          </dd>
        </>
      )}
      {failed && (
        <>
          <dt>failed child</dt>
          <dd data-testid="run-failed-child">
            <RunLink id={failed.id} /> {failed.jobType} <span class="muted">on {failed.queue}</span> — parked, so this
            run was parked without running
          </dd>
        </>
      )}
      {children.length > 0 && (
        <>
          <dt>children</dt>
          <dd data-testid="run-children">
            {run.waitingForChildren
              ? `waiting for ${pending} of ${plural(children.length, 'child', 'children')}`
              : plural(children.length, 'child', 'children')}
            <ChildList of={run.id} children={children} failed={failed?.id} />
          </dd>
        </>
      )}
    </>
  );
}

function ChildList({ of, children, failed }: { of: string; children: Child[]; failed?: string }) {
  const more = children.length - SHOWN_CHILDREN;
  return (
    <>
      <ul class="plain flow-tree" aria-label={`children of ${of}`}>
        {children.slice(0, SHOWN_CHILDREN).map((c) => (
          <ChildItem key={c.id} child={c} failed={c.id === failed} />
        ))}
      </ul>
      {more > 0 && (
        <p class="muted small">
          and {more} more (<code>drover flows tree {of}</code> lists every run)
        </p>
      )}
    </>
  );
}

function ChildItem({ child, failed }: { child: Child; failed: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <li data-testid="flow-child">
      <RunLink id={child.id} /> {child.jobType} <span class="muted">on {child.queue}</span>{' '}
      {child.status ? <Status status={child.status} /> : <span class="muted">(removed by its retention)</span>}
      {child.onFailure === 'ignore' && <span class="muted small"> (its failure is ignored)</span>}
      {failed && <strong> parked its parent</strong>}{' '}
      {(child.children ?? 0) > 0 && (
        <button type="button" class="link small" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span aria-hidden="true">{open ? '▾' : '▸'} </span>
          {plural(child.children!, 'child', 'children')}
          <span class="sr-only"> of {child.id}</span>
        </button>
      )}
      {open && <SubTree id={child.id} />}
    </li>
  );
}

/** A child's own children, read when its level is opened and re-read when one of them changes. */
function SubTree({ id }: { id: string }) {
  const res = useResource(() => readRun(id), [id]);
  const children = res.data?.flow?.children ?? [];
  useLiveReload(['run'], res.reload, touches(children));
  if (!res.data) return res.error ? <ErrorNote error={res.error} /> : <p class="muted small">Loading…</p>;
  if (!children.length) return <p class="muted small">No children of its own.</p>;
  return <ChildList of={id} children={children} failed={failedChild(res.data)?.id} />;
}
