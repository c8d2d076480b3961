import { api, ok, type Queue, type Run } from '../api';
import { ErrorNote, Page, Time } from '../components/bits';
import { Sparkline } from '../components/charts';
import { Link } from '../components/link';
import { duration } from '../format';
import { useLiveReload } from '../live';
import { useResource } from '../resource';

const BUCKETS = 12;
const BUCKET_MS = 5 * 60_000;

interface QueueTrend {
  throughput: number[];
  failures: number[];
  latenessMs: number[];
}

/**
 * Per-queue trends over the last hour in 5-minute buckets, from the queue's latest 200 runs (the
 * API's stats are per routine; runs are what every queue has).
 */
function trendOf(runs: Run[], now: number): QueueTrend {
  const t: QueueTrend = { throughput: [], failures: [], latenessMs: [] };
  const late: number[][] = [];
  for (let i = 0; i < BUCKETS; i++) {
    t.throughput.push(0);
    t.failures.push(0);
    late.push([]);
  }
  const start = now - BUCKETS * BUCKET_MS;
  for (const r of runs) {
    if (!r.finishedAt) continue;
    const b = Math.floor((Date.parse(r.finishedAt) - start) / BUCKET_MS);
    if (b < 0 || b >= BUCKETS) continue;
    if (r.status === 'succeeded') t.throughput[b]!++;
    if (r.status === 'parked' || r.status === 'failed') t.failures[b]!++;
    if (r.scheduledFor && r.startedAt) late[b]!.push(Math.max(0, Date.parse(r.startedAt) - Date.parse(r.scheduledFor)));
  }
  t.latenessMs = late.map((l) => (l.length ? l.reduce((a, b) => a + b, 0) / l.length : 0));
  return t;
}

async function loadOverview() {
  const [cluster, queues] = await Promise.all([ok(api.GET('/api/v1/cluster')), ok(api.GET('/api/v1/queues'))]);
  const now = Date.now();
  const trends = await Promise.all(
    queues.items.map(async (q) => {
      const page = await ok(api.GET('/api/v1/runs', { params: { query: { queue: q.name, page_size: 200 } } }));
      return [q.name, trendOf(page.items, now)] as const;
    }),
  );
  return { cluster, queues: queues.items, trends: new Map(trends) };
}

function QueueRow({ q, trend }: { q: Queue; trend?: QueueTrend }) {
  const sum = (v: number[] = []) => v.reduce((a, b) => a + b, 0);
  const lateMax = Math.max(0, ...(trend?.latenessMs ?? []));
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
      <td>
        <Sparkline values={trend?.throughput ?? []} label={`${sum(trend?.throughput)} succeeded in the last hour`} />
      </td>
      <td>
        <Sparkline
          values={trend?.failures ?? []}
          tone="bad"
          label={`${sum(trend?.failures)} failed or parked in the last hour`}
        />
      </td>
      <td>
        <Sparkline
          values={trend?.latenessMs ?? []}
          tone="warn"
          label={`lateness up to ${duration(lateMax)} in the last hour`}
        />
      </td>
    </tr>
  );
}

export function Overview() {
  const res = useResource(loadOverview, []);
  useLiveReload(['queue', 'run', 'routine'], res.reload);
  const d = res.data;
  return (
    <Page title="Overview">
      <ErrorNote error={res.error} />
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
          <h2>Queues</h2>
          <div class="scroll">
            <table>
              <caption class="sr-only">Queues with run counts per state and trends over the last hour</caption>
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
                  <th scope="col">throughput (1 h)</th>
                  <th scope="col">failures (1 h)</th>
                  <th scope="col">lateness (1 h)</th>
                </tr>
              </thead>
              <tbody>
                {d.queues.map((q) => (
                  <QueueRow key={q.name} q={q} trend={d.trends.get(q.name)} />
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Page>
  );
}
