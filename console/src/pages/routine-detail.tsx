import { Fragment } from 'preact';
import { api, ok, type Routine } from '../api';
import { Empty, ErrorNote, Page, Status, Time, RunLink } from '../components/bits';
import { DurationChart } from '../components/charts';
import { LauncherPanel } from '../components/launcher-panel';
import { Link } from '../components/link';
import { NextFires } from '../components/next-fires';
import { RoutineActions } from '../components/routine-actions';
import { RoutineManage } from '../components/routine-manage';
import { SelectorPanel } from '../components/selector-panel';
import { SlotStrip } from '../components/slot-strip';
import { duration, json, runDuration, when } from '../format';
import { useLiveReload } from '../live';
import { useResource } from '../resource';
import { triggerList } from './routines';

type Condition = NonNullable<Routine['definition']['condition']>;

/** The routine's condition in one line: checked when each fire fires (headers are never shown). */
function conditionText(c: Condition): string {
  if (typeof c === 'string') return `${c} (@Condition in the scheduler)`;
  return c.kind === 'http'
    ? `http GET ${c.url}: runs on {"run": true}`
    : `while ${c.queue} has fewer than ${c.below} waiting`;
}

type Exclusion = NonNullable<Routine['definition']['exclude']>[number];
/** An exclusion calendar in a line: its name, else what it holds. */
const exclusionText = (c: Exclusion) =>
  typeof c === 'string'
    ? c
    : (c.name ??
        [c.dates && `${c.dates.length} date${c.dates.length === 1 ? '' : 's'}`, c.cron && `"${c.cron}"`]
          .filter(Boolean)
          .join(' and ')) + (c.tz ? ` (${c.tz})` : '');

const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v * 100)} %`);

async function load(name: string) {
  const path = { params: { path: { name } } };
  const [routine, runs, stats, preview, ledger] = await Promise.all([
    ok(api.GET('/api/v1/routines/{name}', path)),
    ok(api.GET('/api/v1/routines/{name}/runs', path)),
    ok(api.GET('/api/v1/routines/{name}/stats', { params: { path: { name }, query: { window: '24h' } } })),
    ok(api.GET('/api/v1/routines/{name}/preview', { params: { path: { name }, query: { count: 10 } } })),
    ok(api.GET('/api/v1/routines/{name}/slots', path)),
  ]);
  return { routine, runs: runs.items, stats, preview, ledger };
}

export function RoutineDetail({ name }: { name: string }) {
  const res = useResource(() => load(name), [name]);
  useLiveReload(['routine', 'run'], res.reload, (e) => (e.kind === 'routine' ? e.id === name : e.action === 'status'));
  const d = res.data;
  const finished = (d?.runs ?? []).filter((r) => runDuration(r) !== undefined).reverse();
  const skipped = (d?.runs ?? []).filter((r) => r.status === 'skipped').slice(0, 10);
  return (
    <Page
      title={`Routine ${name}`}
      actions={
        d && (
          <>
            <RoutineActions routine={d.routine} onChange={res.reload} archiving />
            <RoutineManage routine={d.routine} onChange={res.reload} />
          </>
        )
      }
    >
      <ErrorNote error={res.error} />
      {d && (
        <>
          <dl class="facts">
            <dt>status</dt>
            <dd>
              <Status status={d.routine.status} />
              {d.routine.pause?.note && <> “{d.routine.pause.note}”</>}
              {d.routine.pause?.until && <> until {when(d.routine.pause.until)}</>}
            </dd>
            {triggerList(d.routine.definition).map((t) => (
              <Fragment key={t.label ?? 'trigger'}>
                <dt>{t.label === undefined ? 'trigger' : `trigger ${t.label}`}</dt>
                <dd>{t.text}</dd>
              </Fragment>
            ))}
            {d.routine.definition.condition !== undefined && (
              <>
                <dt>condition</dt>
                <dd>{conditionText(d.routine.definition.condition)}</dd>
              </>
            )}
            <dt>job</dt>
            <dd>
              {d.routine.definition.jobType} on{' '}
              <Link to={`/runs?queue=${d.routine.definition.queue}`}>{d.routine.definition.queue}</Link>
            </dd>
            <dt>origin</dt>
            <dd>
              {d.routine.origin}
              {d.routine.drifted && (
                <span class="badge s-drift">
                  drift: edited at runtime{d.routine.drift?.by ? ` by ${d.routine.drift.by}` : ''}
                </span>
              )}
            </dd>
            <dt>policies</dt>
            <dd>
              overlap {d.routine.definition.concurrencyPolicy}, catch-up {d.routine.definition.catchUpPolicy}
            </dd>
            {(d.routine.definition.startAt || d.routine.definition.endAt) && (
              <>
                <dt>runs</dt>
                <dd>
                  {d.routine.definition.startAt ? <>from {when(d.routine.definition.startAt)} </> : null}
                  {d.routine.definition.endAt ? <>until {when(d.routine.definition.endAt)}</> : null}
                </dd>
              </>
            )}
            {(d.routine.definition.exclude ?? []).length > 0 && (
              <>
                <dt>excludes</dt>
                <dd>{(d.routine.definition.exclude ?? []).map(exclusionText).join('; ')}</dd>
              </>
            )}
          </dl>

          <LauncherPanel routine={d.routine} onChange={res.reload} />

          {d.routine.definition.selector && <SelectorPanel routine={d.routine} reloadKey={d} />}

          <h2>Last 24 hours</h2>
          <div class="cards">
            <div class="card">
              <h3>runs</h3>
              <p class="big">{d.stats.total}</p>
              <p class="muted small">
                {d.stats.counts.succeeded} ok · {d.stats.counts.parked} parked · {d.stats.counts.skipped} skipped ·{' '}
                {d.stats.counts.canceled} canceled
              </p>
            </div>
            <div class="card">
              <h3>success</h3>
              <p class="big">{pct(d.stats.successRatio)}</p>
            </div>
            <div class="card">
              <h3>duration p50 / p95</h3>
              <p>
                {duration(d.stats.durationMs.p50)} / {duration(d.stats.durationMs.p95)}
              </p>
            </div>
            <div class="card">
              <h3>lateness p50 / p95</h3>
              <p>
                {duration(d.stats.latenessMs.p50)} / {duration(d.stats.latenessMs.p95)}
              </p>
            </div>
          </div>

          <h2>History</h2>
          {d.ledger.items.length > 0 && <SlotStrip ledger={d.ledger} />}
          {finished.length > 0 && (
            <DurationChart
              label={`durations of the last ${finished.length} finished runs`}
              bars={finished.map((r) => ({
                ms: runDuration(r)!,
                ok: r.status === 'succeeded',
                title: `${r.status} in ${duration(runDuration(r))} at ${when(r.finishedAt)}`,
              }))}
            />
          )}
          {d.runs.length === 0 ? (
            <Empty>No runs yet.</Empty>
          ) : (
            <div class="scroll">
              <table>
                <caption class="sr-only">Recent runs of {name}</caption>
                <thead>
                  <tr>
                    <th scope="col">run</th>
                    <th scope="col">status</th>
                    <th scope="col">slot</th>
                    <th scope="col">duration</th>
                    <th scope="col">source</th>
                  </tr>
                </thead>
                <tbody>
                  {d.runs.slice(0, 50).map((r) => (
                    <tr key={r.id}>
                      <th scope="row">
                        <RunLink id={r.id} />
                      </th>
                      <td>
                        <Status status={r.status} />
                      </td>
                      <td>
                        <Time iso={r.scheduledFor ?? r.createdAt} />
                      </td>
                      <td>{duration(runDuration(r))}</td>
                      <td>{r.source}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}

          <h2>Why fires were skipped</h2>
          {skipped.length === 0 ? (
            <Empty>No skipped fires among the recent runs.</Empty>
          ) : (
            <ul class="plain">
              {skipped.map((r) => (
                <li key={r.id}>
                  <Time iso={r.scheduledFor} /> — {r.reason ?? 'no reason recorded'}
                </li>
              ))}
            </ul>
          )}

          <NextFires name={name} preview={d.preview} onChange={res.reload} />
          <details>
            <summary>Definition</summary>
            <pre>{json(d.routine.definition)}</pre>
          </details>
        </>
      )}
    </Page>
  );
}
