import { useState } from 'preact/hooks';
import { RUN_STATUSES } from '@drover/core/words';
import { api, ok, type Run } from '../api';
import { Empty, ErrorNote, Page, Status, Time, RunLink } from '../components/bits';
import { duration, runDuration } from '../format';
import { useLiveReload } from '../live';
import { useResource } from '../resource';
import { navigate, useRoute } from '../router';

const FILTERS = ['queue', 'status', 'routine', 'jobType'] as const;

export function Runs() {
  const { query } = useRoute();
  const filter = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >;
  const key = FILTERS.map((k) => filter[k]).join('|');
  const [pages, setPages] = useState<{ items: Run[]; next?: string }>({ items: [] });
  const [lookup, setLookup] = useState('');
  const load = async (token?: string) => {
    const q = Object.fromEntries(Object.entries(filter).filter(([, v]) => v));
    return ok(
      api.GET('/api/v1/runs', {
        params: { query: { ...q, page_size: 50, ...(token && { page_token: token }) } as never },
      }),
    );
  };
  const res = useResource(async () => {
    const page = await load();
    setPages({ items: page.items, next: page.next_page_token });
    return page;
  }, [key]);
  useLiveReload(['run'], res.reload, (e) => e.action === 'status' && (!filter.queue || e.data?.queue === filter.queue));
  const more = async () => {
    const page = await load(pages.next);
    setPages({ items: [...pages.items, ...page.items], next: page.next_page_token });
  };
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(query);
    if (v) next.set(k, v);
    else next.delete(k);
    navigate(`/runs${next.size ? `?${next}` : ''}`, true);
  };
  const text = (k: (typeof FILTERS)[number], label: string) => (
    <label>
      {label}
      <input
        value={filter[k]}
        onChange={(e) => set(k, (e.target as HTMLInputElement).value.trim())}
        placeholder="any"
      />
    </label>
  );
  return (
    <Page title="Runs">
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (lookup.trim()) navigate(`/runs/${encodeURIComponent(lookup.trim())}`);
        }}
      >
        <label>
          Run id{' '}
          <input
            value={lookup}
            onInput={(e) => setLookup((e.target as HTMLInputElement).value)}
            placeholder="go to a run"
          />
        </label>
        <button type="submit">Open</button>
      </form>
      <div class="filters">
        {text('queue', 'Queue')}
        <label>
          State
          <select value={filter.status} onChange={(e) => set('status', (e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {text('routine', 'Routine')}
        {text('jobType', 'Job type')}
      </div>
      <ErrorNote error={res.error} />
      {res.data && pages.items.length === 0 && <Empty>No runs match.</Empty>}
      {pages.items.length > 0 && (
        <div class="scroll">
          <table>
            <caption class="sr-only">Runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">run</th>
                <th scope="col">status</th>
                <th scope="col">routine / job</th>
                <th scope="col">queue</th>
                <th scope="col">created</th>
                <th scope="col">duration</th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <RunLink id={r.id} />
                  </th>
                  <td>
                    <Status status={r.status} />
                  </td>
                  <td>
                    {r.routine ?? '—'} <span class="muted small">{r.jobType}</span>
                  </td>
                  <td>{r.queue}</td>
                  <td>
                    <Time iso={r.createdAt} />
                  </td>
                  <td>{duration(runDuration(r))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages.next && (
        <button type="button" onClick={() => void more()}>
          Load more
        </button>
      )}
    </Page>
  );
}
