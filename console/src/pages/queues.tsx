import { useState } from 'preact/hooks';
import { api, errorText, ok, type Queue } from '../api';
import { ErrorNote, Page } from '../components/bits';
import { Link } from '../components/link';
import { duration } from '../format';
import { useLiveReload } from '../live';
import { useResource } from '../resource';
import { useCan } from '../session';

function PauseToggle({ q, onChange }: { q: Queue; onChange: () => void }) {
  const can = useCan('operator');
  const [error, setError] = useState<string>();
  if (!can) return null;
  const path = { params: { path: { name: q.name } } };
  const toggle = async () => {
    try {
      await ok(
        q.paused ? api.POST('/api/v1/queues/{name}/resume', path) : api.POST('/api/v1/queues/{name}/pause', path),
      );
      onChange();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <>
      <button
        type="button"
        onClick={() => void toggle()}
        aria-label={`${q.paused ? 'Resume' : 'Pause'} queue ${q.name}`}
      >
        {q.paused ? 'Resume' : 'Pause'}
      </button>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

/** A queue's per-key limit and its busiest keys (the api sends at most 20; the first 3 shown). */
function KeyLoad({ q }: { q: Queue }) {
  const { source, limit } = q.policy.concurrencyKey!;
  const keys = q.keys ?? [];
  return (
    <div class="muted small" data-testid="queue-keys">
      {limit} per key ({source})
      {keys.slice(0, 3).map((k) => (
        <div key={k.key}>
          {k.key}: {k.running} running · {k.waiting} waiting
        </div>
      ))}
      {keys.length > 3 && <div>and {keys.length - 3} more keys</div>}
    </div>
  );
}

export function Queues() {
  const res = useResource(() => ok(api.GET('/api/v1/queues')), []);
  useLiveReload(['queue', 'run'], res.reload, (e) => e.kind === 'queue' || e.action === 'status');
  return (
    <Page title="Queues" actions={useCan('operator') && <Link to="/jobs/new">Enqueue a job</Link>}>
      <ErrorNote error={res.error} />
      <div class="scroll">
        <table>
          <caption class="sr-only">Queues with their limits</caption>
          <thead>
            <tr>
              <th scope="col">queue</th>
              <th scope="col">state</th>
              <th scope="col">concurrency (per worker / cluster)</th>
              <th scope="col">rate limit</th>
              <th scope="col">attempts · timeout</th>
              <th scope="col">workers</th>
              <th scope="col">
                <span class="sr-only">actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(res.data?.items ?? []).map((q) => (
              <tr key={q.name} data-queue={q.name}>
                <th scope="row">
                  <Link to={`/runs?queue=${encodeURIComponent(q.name)}`}>{q.name}</Link>
                  <div class="muted small">{q.origin}</div>
                </th>
                <td>
                  <span class={`badge s-${q.paused ? 'paused' : 'active'}`}>{q.paused ? 'paused' : 'active'}</span>
                  <div class="muted small">
                    {q.counts.waiting} waiting · {q.counts.active} active · {q.counts.parked} parked
                  </div>
                </td>
                <td>
                  {q.policy.concurrency} / {q.policy.globalConcurrency ?? '∞'}
                  {q.policy.concurrencyKey && <KeyLoad q={q} />}
                </td>
                <td>
                  {q.policy.rateLimit
                    ? `${q.policy.rateLimit.max} per ${duration(q.policy.rateLimit.durationMs)}`
                    : 'none'}
                </td>
                <td>
                  {q.policy.maxAttempts} · {duration(q.policy.timeoutMs)}
                </td>
                <td>{q.workers.length}</td>
                <td>
                  <PauseToggle q={q} onChange={res.reload} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
