import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { duration } from '../format';
import { useResource } from '../resource';
import { ErrorNote } from './bits';
import { TimeChart } from './time-chart';

export type OverallStats = Schemas['OverallStats'];
type Totals = Schemas['QueueTotals'];

export const RANGES = [
  { window: '1h', label: '1 h' },
  { window: '24h', label: '24 h' },
  { window: '7d', label: '7 d' },
] as const;
type Range = (typeof RANGES)[number]['window'];

/** What one point of a chart covers, by the api's `stepMs`. */
const STEP_NAMES: Record<number, string> = {
  60_000: 'minute',
  300_000: '5 min',
  900_000: '15 min',
  3_600_000: 'hour',
  10_800_000: '3 h',
  21_600_000: '6 h',
};

/** How often the totals are read again: workers write them once a second, so a run event would be too often. */
const REFRESH_MS = 10_000;

/** The 1 h and 24 h totals of every queue and all together (two reads of `GET /stats`). */
export async function loadTotals() {
  const read = (window: string) => ok(api.GET('/api/v1/stats', { params: { query: { window } } }));
  const [hour, day] = await Promise.all([read('1h'), read('24h')]);
  return { hour, day };
}

/** Reloads `reload` every {@link REFRESH_MS} while mounted. */
export function useRefresh(reload: () => void) {
  useEffect(() => {
    const timer = window.setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
}

function TotalCard({
  title,
  pick,
  hour,
  day,
  tone,
}: {
  title: string;
  pick: (t: Totals) => number;
  hour: Totals;
  day: Totals;
  tone?: string;
}) {
  const h = pick(hour);
  return (
    <div class="card" data-testid={`total-${title}`}>
      <h2>{title}</h2>
      <p class={`big ${h > 0 && tone ? tone : ''}`}>
        {h} <span class="muted small">in 1 h</span>
      </p>
      <p class="muted small">{pick(day)} in 24 h</p>
    </div>
  );
}

/** Processed, failed and parked in the last hour and day, all queues together. */
export function TotalCards({ hour, day }: { hour: OverallStats; day: OverallStats }) {
  return (
    <div class="cards">
      <TotalCard title="processed" pick={(t) => t.processed} hour={hour.totals} day={day.totals} />
      <TotalCard title="failed" pick={(t) => t.failed} hour={hour.totals} day={day.totals} tone="c-warn" />
      <TotalCard title="parked" pick={(t) => t.parked} hour={hour.totals} day={day.totals} tone="c-bad" />
    </div>
  );
}

/** Throughput, failure and lateness charts over a chosen range, of all queues or one. */
export function RunCharts({ queues }: { queues: string[] }) {
  const [range, setRange] = useState<Range>('1h');
  const [queue, setQueue] = useState('');
  const res = useResource<Schemas['QueueStats'] | OverallStats>(
    () =>
      queue
        ? ok(api.GET('/api/v1/queues/{name}/stats', { params: { path: { name: queue }, query: { window: range } } }))
        : ok(api.GET('/api/v1/stats', { params: { query: { window: range } } })),
    [range, queue],
  );
  useRefresh(res.reload);
  const d = res.data;
  const now = d ? Date.parse(d.to) : Date.now();
  const at = d?.points.map((p) => p.at) ?? [];
  const who = queue ? `queue ${queue}` : 'all queues';
  const span = RANGES.find((r) => r.window === range)!.label;
  const per = d ? (STEP_NAMES[d.stepMs] ?? `${d.stepMs / 60_000} min`) : '';
  const count = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
  return (
    <section aria-labelledby="charts-title">
      <div class="chart-controls">
        <h2 id="charts-title">Runs over time</h2>
        <div role="group" aria-label="Range" class="seg">
          {RANGES.map((r) => (
            <button key={r.window} type="button" aria-pressed={range === r.window} onClick={() => setRange(r.window)}>
              {r.label}
            </button>
          ))}
        </div>
        <label>
          queue{' '}
          <select value={queue} onChange={(e) => setQueue((e.target as HTMLSelectElement).value)}>
            <option value="">all queues</option>
            {queues.map((q) => (
              <option key={q} value={q}>
                {q}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote error={res.error} />
      {d && (
        <div class="tcharts">
          <TimeChart
            title={`Throughput (per ${per})`}
            label={`${d.totals.processed} attempts processed by ${who} in the last ${span}`}
            at={at}
            series={[{ name: 'processed', tone: 'c-accent', values: d.points.map((p) => p.processed) }]}
            kind="bars"
            format={count}
            now={now}
          />
          <TimeChart
            title={`Failures (per ${per})`}
            label={`${d.totals.failed} attempts failed and ${d.totals.parked} runs parked in ${who} in the last ${span}`}
            at={at}
            series={[
              { name: 'failed', tone: 'c-warn', values: d.points.map((p) => p.failed) },
              { name: 'parked', tone: 'c-bad', values: d.points.map((p) => p.parked) },
            ]}
            kind="bars"
            format={count}
            now={now}
          />
          <TimeChart
            title="Lateness of first starts"
            label={`lateness in ${who} over the last ${span}: p50 ${duration(d.latenessMs.p50)}, p95 ${duration(d.latenessMs.p95)}`}
            at={at}
            series={[
              { name: 'p50', tone: 'c-accent', values: d.points.map((p) => p.latenessP50Ms) },
              { name: 'p95', tone: 'c-warn', values: d.points.map((p) => p.latenessP95Ms) },
            ]}
            kind="lines"
            format={(v) => duration(v)}
            now={now}
          />
        </div>
      )}
    </section>
  );
}
