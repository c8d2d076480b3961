import { useState } from 'preact/hooks';
import { INSTANT_HINT, parseInstant } from '@drover/core/human-time';
import { api, ok, type Schemas } from '../api';
import { Empty, ErrorNote, Page, Time } from '../components/bits';
import { useResource } from '../resource';
import { navigate, useRoute } from '../router';
import { useCan } from '../session';

const FILTERS = ['token', 'action', 'target', 'from', 'to'] as const;
type Filter = (typeof FILTERS)[number];
const LABELS: Record<Filter, string> = { token: 'Who', action: 'Action', target: 'Target', from: 'From', to: 'To' };
const HINTS: Partial<Record<Filter, string>> = {
  token: 'a token name',
  action: 'pauseRoutine',
  target: 'nightly',
  from: '-24h',
  to: 'now',
};

/**
 * Who changed what (`GET /audit`, admin): every mutating call, newest first, filtered by who,
 * action, target (any case, contained) and a time range, all kept in the page's address; "Older"
 * follows the api's page token. The refused calls' log is one select away.
 */
export function Audit() {
  const admin = useCan('admin');
  const { query } = useRoute();
  const [pages, setPages] = useState<string[]>([]);
  const [error, setError] = useState<string>();
  const key = query.toString();
  const res = useResource(async () => {
    if (!admin) return undefined;
    const now = Date.now();
    const at = (t: string | null) => (t ? parseInstant(t, now) : undefined);
    const q = {
      log: (query.get('log') ?? 'principals') as 'principals' | 'refused',
      page_size: 50,
      ...(query.get('token') && { token: query.get('token')! }),
      ...(query.get('action') && { action: query.get('action')! }),
      ...(query.get('target') && { target: query.get('target')! }),
      ...(at(query.get('from')) && { from: at(query.get('from'))! }),
      ...(at(query.get('to')) && { to: at(query.get('to'))! }),
      ...(pages.length && { page_token: pages[pages.length - 1]! }),
    };
    return ok(api.GET('/api/v1/audit', { params: { query: q } }));
  }, [key, pages, admin]);

  if (!admin)
    return (
      <Page title="Audit log">
        <p>The audit log is for admins.</p>
      </Page>
    );
  const apply = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const next = new URLSearchParams();
    for (const k of ['log', ...FILTERS]) {
      const v = String(form.get(k) ?? '').trim();
      if (v && !(k === 'log' && v === 'principals')) next.set(k, v);
    }
    for (const k of ['from', 'to'] as const) {
      const v = next.get(k);
      if (v && !parseInstant(v, Date.now())) return setError(`${LABELS[k]}: "${v}" is not ${INSTANT_HINT}`);
    }
    setError(undefined);
    setPages([]);
    navigate(`/audit${next.size ? `?${next}` : ''}`);
  };
  const items: Schemas['AuditEntry'][] = res.data?.items ?? [];
  return (
    <Page title="Audit log">
      <form class="filters" role="search" aria-label="Filter the audit log" onSubmit={apply} key={key}>
        <label>
          Log
          <select name="log" defaultValue={query.get('log') ?? 'principals'}>
            <option value="principals">what callers did</option>
            <option value="refused">refused calls</option>
          </select>
        </label>
        {FILTERS.map((f) => (
          <label key={f}>
            {LABELS[f]}
            <input name={f} defaultValue={query.get(f) ?? ''} placeholder={HINTS[f]} />
          </label>
        ))}
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={error ?? res.error} />
      {res.loading && res.data && (
        <p class="muted small" role="status">
          Loading…
        </p>
      )}
      {res.data && items.length === 0 ? (
        <Empty>No entries {pages.length ? 'on this page' : 'match'}.</Empty>
      ) : (
        <div class="scroll">
          <table aria-busy={res.loading}>
            <caption class="sr-only">Audit entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">when</th>
                <th scope="col">who</th>
                <th scope="col">role</th>
                <th scope="col">action</th>
                <th scope="col">target</th>
                <th scope="col">status</th>
                <th scope="col">address</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => (
                <tr key={e.id}>
                  <td>
                    <Time iso={e.at} />
                  </td>
                  <td>{e.token}</td>
                  <td>{e.role}</td>
                  <th scope="row">{e.action}</th>
                  <td>
                    <code>{e.target}</code>
                  </td>
                  <td class="num">{e.status}</td>
                  <td>{e.ip}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="row-actions">
        {pages.length > 0 && (
          <button type="button" onClick={() => setPages(pages.slice(0, -1))}>
            Newer
          </button>
        )}
        {res.data?.next_page_token && (
          <button type="button" onClick={() => setPages([...pages, res.data!.next_page_token!])}>
            Older
          </button>
        )}
      </div>
    </Page>
  );
}
