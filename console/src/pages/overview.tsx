import { api, ok, type Queue } from '../api';
import { ErrorNote, Page, Time } from '../components/bits';
import { Link } from '../components/link';
import { loadTotals, RunCharts, TotalCards, useRefresh, type OverallStats } from '../components/run-totals';
import { useLiveReload } from '../live';
import { useResource } from '../resource';

async function loadOverview() {
  const [cluster, queues] = await Promise.all([ok(api.GET('/api/v1/cluster')), ok(api.GET('/api/v1/queues'))]);
  return { cluster, queues: queues.items };
}

type QueueTotals = OverallStats['queues'][number]['totals'];

/** `1 h / 24 h` of one total, the hour's coloured when it is not zero. */
function Pair({ h, d, tone }: { h?: number; d?: number; tone?: string }) {
  return (
    <td class="num">
      <span class={h && tone ? tone : ''}>{h ?? '—'}</span> <span class="muted">/ {d ?? '—'}</span>
    </td>
  );
}

function QueueRow({ q, hour, day }: { q: Queue; hour?: QueueTotals; day?: QueueTotals }) {
  return (
    <tr>
      <th scope="row">
        <Link to={`/runs?queue=${encodeURIComponent(q.name)}`}>{q.name}</Link>
        {q.paused && <span class="badge s-paused">paused</span>}
      </th>
      <td class="num">{q.counts.waiting}</td>
      <td class="num">{q.counts.active}</td>
      <td class="num">{q.counts.delayed}</td>
      <td class="num">{q.counts.prioritized}</td>
      <td class="num">
        {q.counts.parked > 0 ? <Link to={`/parked?queue=${encodeURIComponent(q.name)}`}>{q.counts.parked}</Link> : 0}
      </td>
      <Pair h={hour?.processed} d={day?.processed} />
      <Pair h={hour?.failed} d={day?.failed} tone="c-warn" />
      <Pair h={hour?.parked} d={day?.parked} tone="c-bad" />
    </tr>
  );
}

export function Overview() {
  const res = useResource(loadOverview, []);
  useLiveReload(['queue', 'run', 'routine'], res.reload);
  const totals = useResource(loadTotals, []);
  useRefresh(totals.reload);
  const d = res.data;
  const t = totals.data;
  const totalsOf = (s: OverallStats | undefined, name: string) => s?.queues.find((x) => x.queue === name)?.totals;
  return (
    <Page title="Overview">
      <ErrorNote error={res.error ?? totals.error} />
      {d && (
        <>
          <div class="cards">
            <div class="card" data-testid="leader">
              <h2>Leader</h2>
              {d.cluster.leader ? (
                <p>
                  <strong>{d.cluster.leader.instance}</strong>
                  <br />
                  epoch {d.cluster.leader.epoch}
                  {d.cluster.leader.since && (
                    <>
                      {' '}
                      · since <Time iso={d.cluster.leader.since} />
                    </>
                  )}
                </p>
              ) : (
                <p class="error">No scheduler holds the lease</p>
              )}
            </div>
            <div class="card">
              <h2>Schedulers</h2>
              <p class="big">{d.cluster.schedulers.length}</p>
            </div>
            <div class="card">
              <h2>
                <Link to="/workers">Workers</Link>
              </h2>
              <p class="big">{d.cluster.workers.length}</p>
              <p class="muted small">
                {d.cluster.workers.map((w) => w.queues.map((q) => q.name).join(', ')).join(' · ') || 'none consuming'}
              </p>
            </div>
            <div class="card">
              <h2>API instances</h2>
              <p class="big">{d.cluster.apis.length}</p>
            </div>
          </div>
          <h2>Is everything OK?</h2>
          {t && <TotalCards hour={t.hour} day={t.day} />}
          <RunCharts queues={d.queues.map((q) => q.name)} />
          <h2>Queues</h2>
          <div class="scroll">
            <table>
              <caption class="sr-only">
                Queues with run counts per state, and processed, failed and parked totals in the last hour and day
              </caption>
              <thead>
                <tr>
                  <th scope="col">queue</th>
                  <th scope="col" class="num">
                    waiting
                  </th>
                  <th scope="col" class="num">
                    active
                  </th>
                  <th scope="col" class="num">
                    delayed
                  </th>
                  <th scope="col" class="num">
                    prioritized
                  </th>
                  <th scope="col" class="num">
                    parked
                  </th>
                  <th scope="col" class="num">
                    processed 1 h / 24 h
                  </th>
                  <th scope="col" class="num">
                    failed 1 h / 24 h
                  </th>
                  <th scope="col" class="num">
                    parked 1 h / 24 h
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.queues.map((q) => (
                  <QueueRow key={q.name} q={q} hour={totalsOf(t?.hour, q.name)} day={totalsOf(t?.day, q.name)} />
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Page>
  );
}
