import { api, ok } from '../api';
import { Empty, ErrorNote, Page, Time } from '../components/bits';
import { useLiveReload } from '../live';
import { useResource } from '../resource';

export function Workers() {
  const res = useResource(() => ok(api.GET('/api/v1/cluster')), []);
  useLiveReload(['queue'], res.reload);
  const c = res.data;
  return (
    <Page
      title="Workers"
      actions={
        <button type="button" onClick={res.reload}>
          Refresh
        </button>
      }
    >
      <ErrorNote error={res.error} />
      {c && c.workers.length === 0 && <Empty>No worker is running.</Empty>}
      {c && c.workers.length > 0 && (
        <div class="scroll">
          <table>
            <caption class="sr-only">Live worker processes</caption>
            <thead>
              <tr>
                <th scope="col">instance</th>
                <th scope="col">queues (concurrency)</th>
                <th scope="col">job types</th>
                <th scope="col">version</th>
                <th scope="col">heartbeat</th>
              </tr>
            </thead>
            <tbody>
              {c.workers.map((w) => (
                <tr key={w.instanceId}>
                  <th scope="row">
                    {w.instanceId}
                    {w.draining && <span class="badge s-paused">draining</span>}
                    <div class="muted small">
                      {w.hostname} · pid {w.pid} · up since <Time iso={w.startedAt} />
                    </div>
                  </th>
                  <td>{w.queues.map((q) => `${q.name} (${q.concurrency})`).join(', ')}</td>
                  <td>{w.jobTypes.join(', ')}</td>
                  <td>{w.version}</td>
                  <td>
                    <Time iso={w.heartbeatAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {c && (
        <>
          <h2>Schedulers</h2>
          <ul class="plain">
            {c.schedulers.map((s) => (
              <li key={s.instanceId}>
                {s.instanceId} {s.leader && <span class="badge s-active">leader</span>}{' '}
                <span class="muted small">
                  {s.hostname} · heartbeat <Time iso={s.heartbeatAt} />
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </Page>
  );
}
