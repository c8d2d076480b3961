import { useRef, useState } from 'preact/hooks';
import { api, errorText, ok, type Run, type Schemas } from '../api';
import { Empty, ErrorNote, Page, Time, RunLink } from '../components/bits';
import { useLiveReload } from '../live';
import { useResource } from '../resource';
import { navigate, useRoute } from '../router';
import { useCan } from '../session';

type Filter = { jobType?: string; routine?: string; error?: string };
type Operation = Schemas['Operation'];

const lastError = (r: Run) => r.errors?.at(-1)?.message ?? r.error?.message ?? '(no message)';

/** Parked runs grouped by their last error message, most frequent first. */
function groups(runs: Run[]): { message: string; runs: Run[] }[] {
  const by = new Map<string, Run[]>();
  for (const r of runs) by.set(lastError(r), [...(by.get(lastError(r)) ?? []), r]);
  return [...by.entries()]
    .map(([message, rs]) => ({ message, runs: rs }))
    .sort((a, b) => b.runs.length - a.runs.length);
}

/**
 * Bulk replay or purge of everything the filter matches: a dry run counts first, then the
 * operation's progress follows its `operation` events (each one a nudge to re-read it).
 */
function Bulk({ queue, filter, onDone }: { queue: string; filter: Filter; onDone: () => void }) {
  const canReplay = useCan('operator');
  const canPurge = useCan('admin');
  const [dry, setDry] = useState<{ kind: 'replay' | 'purge'; matched: number }>();
  const [op, setOp] = useState<Operation>();
  const [error, setError] = useState<string>();
  // The operation followed, known from the moment its start is answered: its last event can arrive
  // while the first read is in flight, and a read taken before the end would otherwise be final.
  const following = useRef<string>();
  // Only the latest read is shown: an earlier one answered late must not undo a newer state.
  const reads = useRef(0);
  const refresh = (id: string) => {
    const read = ++reads.current;
    return ok(api.GET('/api/v1/operations/{id}', { params: { path: { id } } })).then(
      (o) => {
        if (read !== reads.current || following.current !== id) return;
        setOp(o);
        if (o.status !== 'running') onDone();
      },
      (err: unknown) => read === reads.current && setError(errorText(err)),
    );
  };
  useLiveReload(
    ['operation'],
    () => following.current && void refresh(following.current),
    (e) => e.id === following.current,
  );
  if (!canReplay) return null;
  const path = { params: { path: { name: queue } } };
  const body = (dryRun: boolean) => ({ filter, dryRun });
  const count = async (kind: 'replay' | 'purge') => {
    setError(undefined);
    setOp(undefined);
    following.current = undefined;
    try {
      const res =
        kind === 'replay'
          ? await ok(api.POST('/api/v1/queues/{name}/parked/replay', { ...path, body: body(true) }))
          : await ok(api.POST('/api/v1/queues/{name}/parked/purge', { ...path, body: body(true) }));
      setDry({ kind, matched: res.matched });
    } catch (err) {
      setError(errorText(err));
    }
  };
  const start = async () => {
    if (!dry) return;
    try {
      const res =
        dry.kind === 'replay'
          ? await ok(api.POST('/api/v1/queues/{name}/parked/replay', { ...path, body: body(false) }))
          : await ok(api.POST('/api/v1/queues/{name}/parked/purge', { ...path, body: body(false) }));
      if ('operationId' in res) {
        following.current = res.operationId;
        await refresh(res.operationId);
      }
      setDry(undefined);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const settled = op ? op.done + op.skipped + op.failed : 0;
  return (
    <div class="bulk" aria-label="Bulk actions">
      <button type="button" onClick={() => void count('replay')}>
        Replay matching…
      </button>
      {canPurge && (
        <button type="button" class="danger" onClick={() => void count('purge')}>
          Purge matching…
        </button>
      )}
      {dry && (
        <p role="status" data-testid="dry-run">
          {dry.matched} parked run{dry.matched === 1 ? '' : 's'} match.{' '}
          {dry.matched > 0 && (
            <button type="button" class={dry.kind === 'purge' ? 'danger' : ''} onClick={() => void start()}>
              {dry.kind === 'replay' ? 'Replay' : 'Purge'} {dry.matched}
            </button>
          )}{' '}
          <button type="button" class="link" onClick={() => setDry(undefined)}>
            Cancel
          </button>
        </p>
      )}
      {op && (
        <div role="status" data-testid="operation">
          <progress max={Math.max(1, op.matched)} value={settled} aria-label={`${op.kind} progress`} /> {op.kind}{' '}
          {op.status}: {op.done} done, {op.skipped} skipped, {op.failed} failed of {op.matched}
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function Parked() {
  const { query } = useRoute();
  const queues = useResource(() => ok(api.GET('/api/v1/queues')), []);
  const queue =
    query.get('queue') ?? queues.data?.items.find((q) => q.counts.parked > 0)?.name ?? queues.data?.items[0]?.name;
  const filter: Filter = Object.fromEntries(
    (['jobType', 'routine', 'error'] as const).flatMap((k) => (query.get(k) ? [[k, query.get(k)!]] : [])),
  );
  const key = `${queue}|${JSON.stringify(filter)}`;
  const res = useResource(
    async () =>
      queue
        ? ok(
            api.GET('/api/v1/queues/{name}/parked', {
              params: { path: { name: queue }, query: { ...filter, page_size: 1000 } },
            }),
          )
        : undefined,
    [key],
  );
  useLiveReload(['run', 'queue'], res.reload, (e) => e.kind === 'queue' || e.data?.queue === queue);
  const set = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(query);
    if (queue) next.set('queue', queue);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    navigate(`/parked?${next}`, true);
  };
  const items = res.data?.items ?? [];
  return (
    <Page title="Parked runs">
      <div class="filters">
        <label>
          Queue
          <select value={queue} onChange={(e) => set({ queue: (e.target as HTMLSelectElement).value })}>
            {(queues.data?.items ?? []).map((q) => (
              <option key={q.name} value={q.name}>
                {q.name} ({q.counts.parked})
              </option>
            ))}
          </select>
        </label>
        {(['routine', 'jobType', 'error'] as const).map((k) => (
          <label key={k}>
            {k === 'error' ? 'Error contains' : k === 'jobType' ? 'Job type' : 'Routine'}
            <input
              value={filter[k] ?? ''}
              placeholder="any"
              onChange={(e) => set({ [k]: (e.target as HTMLInputElement).value.trim() })}
            />
          </label>
        ))}
      </div>
      <ErrorNote error={queues.error ?? res.error} />
      {queue && <Bulk queue={queue} filter={filter} onDone={res.reload} />}
      {res.data && items.length === 0 && (
        <Empty>Nothing parked here{Object.keys(filter).length ? ' that matches' : ''}.</Empty>
      )}
      {groups(items).map((g) => (
        <details key={g.message} class="group" open={groups(items).length <= 3}>
          <summary>
            <strong class="count">{g.runs.length}×</strong> <span class="error">{g.message}</span>
          </summary>
          <button type="button" class="link" onClick={() => set({ error: g.message.slice(0, 200) })}>
            Filter by this error
          </button>
          <ul class="plain">
            {g.runs.slice(0, 100).map((r) => (
              <li key={r.id}>
                <RunLink id={r.id} /> <span class="muted small">{r.routine ?? r.jobType}</span>{' '}
                <Time iso={r.finishedAt} />
              </li>
            ))}
          </ul>
        </details>
      ))}
      {res.data?.next_page_token && <p class="muted">Showing the newest 1000 parked runs.</p>}
    </Page>
  );
}
