import { useState } from 'preact/hooks';
import { ROUTINE_STATUSES } from '@drover/core/words';
import { api, ok, type Routine } from '../api';
import { Empty, ErrorNote, Page, Status, Time } from '../components/bits';
import { Link } from '../components/link';
import { RoutineActions } from '../components/routine-actions';
import { useLiveReload } from '../live';
import { useResource } from '../resource';
import { navigate, useRoute } from '../router';
import { useCan } from '../session';

type Definition = Routine['definition'];
type Trigger = NonNullable<Definition['trigger']> | NonNullable<Definition['triggers']>[number];

export function triggerText(t: Trigger): string {
  switch (t.kind) {
    case 'cron':
      return `cron ${t.cron}${t.tz ? ` (${t.tz})` : ''}`;
    case 'interval':
      return `every ${t.everyMs / 1000} s`;
    case 'once':
      return `once at ${t.at}`;
    default:
      return 'manual';
  }
}

/**
 * Every trigger of a routine with what its slots are attributed to: one unlabelled entry for a
 * single `trigger`; for a `triggers` list each trigger's name, else its index.
 */
export function triggerList(d: Definition): { label?: string; text: string }[] {
  if (d.triggers) return d.triggers.map((t, i) => ({ label: t.name ?? String(i), text: triggerText(t) }));
  return d.trigger ? [{ text: triggerText(d.trigger) }] : [];
}

/** The routine's triggers on one line (`weekdays: cron … + 1: cron …`). */
export function scheduleText(d: Definition): string {
  return triggerList(d)
    .map((t) => (t.label === undefined ? t.text : `${t.label}: ${t.text}`))
    .join(' + ');
}

/** Every routine, archived ones only when asked for (the api leaves them out otherwise). */
async function loadAll(archived: boolean): Promise<Routine[]> {
  const items: Routine[] = [];
  let token: string | undefined;
  do {
    const query = {
      page_size: 1000,
      ...(archived && { include: 'archived' as const }),
      ...(token && { page_token: token }),
    };
    const page = await ok(api.GET('/api/v1/routines', { params: { query } }));
    items.push(...page.items);
    token = page.next_page_token;
  } while (token && items.length < 10_000);
  return items;
}

export function Routines() {
  const { query } = useRoute();
  const [q, setQ] = useState(query.get('q') ?? '');
  const status = query.get('status') ?? '';
  const res = useResource(() => loadAll(status === 'archived'), [status === 'archived']);
  useLiveReload(['routine', 'run'], res.reload, (e) => e.kind === 'routine' || e.action === 'status');
  const needle = q.trim().toLowerCase();
  const shown = (res.data ?? []).filter(
    (r) =>
      (!status || r.status === status) &&
      (!needle ||
        r.name.includes(needle) ||
        r.definition.jobType.includes(needle) ||
        r.definition.queue.includes(needle)),
  );
  const setStatus = (s: string) => navigate(`/routines${s ? `?status=${s}` : ''}`, true);
  return (
    <Page title="Routines" actions={<NewRoutineLink />}>
      <div class="filters" role="search">
        <label>
          Search{' '}
          <input
            type="search"
            value={q}
            onInput={(e) => setQ((e.target as HTMLInputElement).value)}
            placeholder="name, job type, queue"
          />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">any but archived</option>
            {ROUTINE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote error={res.error} />
      {res.data && shown.length === 0 && <Empty>No routine matches.</Empty>}
      {shown.length > 0 && (
        <div class="scroll">
          <table>
            <caption class="sr-only">Routines</caption>
            <thead>
              <tr>
                <th scope="col">routine</th>
                <th scope="col">trigger</th>
                <th scope="col">status</th>
                <th scope="col">next fire</th>
                <th scope="col">last run</th>
                <th scope="col">
                  <span class="sr-only">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <tr key={r.name} data-routine={r.name}>
                  <th scope="row">
                    <Link to={`/routines/${encodeURIComponent(r.name)}`}>{r.name}</Link>
                    {r.drifted && (
                      <span
                        class="badge s-drift"
                        title={`edited at runtime${r.drift?.by ? ` by ${r.drift.by}` : ''}: differs from the policy file`}
                      >
                        drift
                      </span>
                    )}
                    <div class="muted small">
                      {r.definition.jobType} · {r.definition.queue}
                    </div>
                  </th>
                  <td>{scheduleText(r.definition)}</td>
                  <td>
                    <Status status={r.status} />
                    {r.pause && (
                      <div class="muted small">
                        {r.pause.note && <>“{r.pause.note}” </>}
                        {r.pause.until && (
                          <>
                            until <Time iso={r.pause.until} />
                          </>
                        )}
                      </div>
                    )}
                    {r.disabledReason && <div class="error small">{r.disabledReason}</div>}
                  </td>
                  <td>
                    <Time iso={r.nextFireAt} />
                  </td>
                  <td>
                    {r.lastRun ? (
                      <Link to={`/runs/${encodeURIComponent(r.lastRun.id)}`}>
                        <Status status={r.lastRun.status} /> <Time iso={r.lastRun.at} />
                      </Link>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    <RoutineActions routine={r} onChange={res.reload} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

/** Operators and up create routines (a form or JSON, validated and diffed before saving). */
function NewRoutineLink() {
  return useCan('operator') ? <Link to="/routines/new">New routine</Link> : null;
}
