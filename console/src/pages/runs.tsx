import { useEffect, useRef, useState } from 'preact/hooks';
import { RUN_STATUSES } from '@drover/core/words';
import { api, ok, type Run } from '../api';
import { Empty, ErrorNote, Page, Status, Time, RunLink } from '../components/bits';
import { duration, runDuration } from '../format';
import { useLiveReload } from '../live';
import { useResource } from '../resource';
import { navigate, useRoute } from '../router';

/** The filters kept in the page's URL (`/ui/runs?search=customer.id%3D42&since=2h`), so a search can be shared. */
const FILTERS = ['queue', 'status', 'routine', 'jobType', 'since', 'until', 'search', 'include'] as const;

export function Runs() {
  const { query } = useRoute();
  const filter = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >;
  const key = FILTERS.map((k) => filter[k]).join('|');
  const [pages, setPages] = useState<{ items: Run[]; next?: string; scanned: number; limited: boolean }>({
    items: [],
    scanned: 0,
    limited: false,
  });
  const [lookup, setLookup] = useState('');
  // What is typed but not applied yet: a re-render (a live update, another field applied) keeps it;
  // a filter changed in the address (back, a shared link) replaces only that field.
  const [draft, setDraft] = useState(filter);
  const applied = useRef(filter);
  useEffect(() => {
    const before = applied.current;
    applied.current = filter;
    setDraft((d) => ({
      ...d,
      ...Object.fromEntries(FILTERS.filter((k) => filter[k] !== before[k]).map((k) => [k, filter[k]])),
    }));
  }, [key]);
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
    setPages({
      items: page.items,
      next: page.next_page_token,
      scanned: page.scanned,
      limited: page.scan_limit_reached,
    });
    return page;
  }, [key]);
  // A search reads up to a thousand runs: it is not re-run on every status change (reload the page for news).
  useLiveReload(
    ['run'],
    res.reload,
    (e) => !filter.search && e.action === 'status' && (!filter.queue || e.data?.queue === filter.queue),
  );
  const more = async () => {
    const page = await load(pages.next);
    setPages({
      items: [...pages.items, ...page.items],
      next: page.next_page_token,
      scanned: pages.scanned + page.scanned,
      limited: page.scan_limit_reached,
    });
  };
  const set = (k: string, v: string) => {
    const next = new URLSearchParams(query);
    if (v) next.set(k, v);
    else next.delete(k);
    navigate(`/runs${next.size ? `?${next}` : ''}`, true);
  };
  const text = (k: (typeof FILTERS)[number], label: string, placeholder = 'any', hint?: string, wide = false) => (
    <label title={hint}>
      {label}
      <input
        class={wide ? 'wide' : undefined}
        value={draft[k]}
        onInput={(e) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value })}
        onChange={(e) => set(k, (e.target as HTMLInputElement).value.trim())}
        placeholder={placeholder}
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
        {text('since', 'Since', 'e.g. 2h', 'created at or after: 30m, 2h, 7d ago, or an ISO instant with its zone')}
        {text('until', 'Until', 'now', 'created at or before: a duration ago, or an ISO instant with its zone')}
        {text(
          'search',
          'Search',
          'field=value, id or error',
          'customer.id=42 matches a payload field; other text a run id prefix or an error message',
          true,
        )}
        <label class="check">
          <input
            type="checkbox"
            checked={filter.include === 'system'}
            onChange={(e) => set('include', (e.target as HTMLInputElement).checked ? 'system' : '')}
          />
          Housekeeping runs
        </label>
      </div>
      <ErrorNote error={res.error} />
      {pages.limited && (
        <p class="muted" role="status">
          Read {pages.scanned} runs, the most one search reads: narrow Since / Until (or queue, routine, state) to look
          further{pages.next ? ', or load more' : ''}.
        </p>
      )}
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
