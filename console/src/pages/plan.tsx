import { api, ok } from '../api';
import { Empty, ErrorNote, Page, RunLink, Time } from '../components/bits';
import { Link } from '../components/link';
import { when } from '../format';
import { useLiveReload } from '../live';
import { useResource } from '../resource';

export function Plan() {
  const res = useResource(() => ok(api.GET('/api/v1/plan')), []);
  useLiveReload(['routine', 'queue'], res.reload);
  const p = res.data;
  return (
    <Page
      title="Plan"
      actions={
        <button type="button" onClick={res.reload}>
          Refresh
        </button>
      }
    >
      <ErrorNote error={res.error} />
      {p && (
        <>
          <p class="muted">What the scheduler would do as of {when(p.now)}, and what waits and why.</p>
          <h2>Upcoming fires</h2>
          {p.upcoming.length === 0 ? (
            <Empty>None.</Empty>
          ) : (
            <ul class="plain">
              {p.upcoming.map((u) => (
                <li key={`${u.routine}-${u.at}`}>
                  <Link to={`/routines/${encodeURIComponent(u.routine)}`}>{u.routine}</Link> <Time iso={u.at} />
                  {u.start && (
                    <span class="muted">
                      {' '}
                      starts <Time iso={u.start} />
                    </span>
                  )}
                </li>
              ))}
            </ul>
          )}
          <h2>Due now</h2>
          {p.fires.length === 0 ? (
            <Empty>Nothing is due.</Empty>
          ) : (
            <ul class="plain">
              {p.fires.map((f) => (
                <li key={f.runId}>
                  <RunLink id={f.runId} />: {f.routine} on {f.queue} ({f.source}) <Time iso={f.slot} />
                </li>
              ))}
            </ul>
          )}
          <h2>Starts next</h2>
          {p.starts.length === 0 ? (
            <Empty>No run is about to start.</Empty>
          ) : (
            <ul class="plain">
              {p.starts.map((s) => (
                <li key={s.runId}>
                  <RunLink id={s.runId} /> on {s.queue}
                  {s.routine && <> ({s.routine})</>}
                </li>
              ))}
            </ul>
          )}
          <h2>Skipped</h2>
          {p.skips.length === 0 ? (
            <Empty>No skips.</Empty>
          ) : (
            <ul class="plain">
              {p.skips.map((s) => (
                <li key={`${s.routine}-${s.slot}`}>
                  {s.routine} <Time iso={s.slot} />: {s.reason}
                </li>
              ))}
            </ul>
          )}
          <h2>Waiting</h2>
          {p.waiting.length === 0 ? (
            <Empty>Nothing waits.</Empty>
          ) : (
            <ul class="plain">
              {p.waiting.map((w, i) => (
                <li key={i}>
                  {w.subject.kind === 'routine' ? (
                    <>
                      routine <Link to={`/routines/${encodeURIComponent(w.subject.name)}`}>{w.subject.name}</Link>
                    </>
                  ) : (
                    <>
                      run <RunLink id={w.subject.id} /> ({w.subject.queue})
                    </>
                  )}
                  : {w.reason}
                  {w.until && (
                    <>
                      {' '}
                      until <Time iso={w.until} />
                    </>
                  )}
                  {w.detail && <span class="muted small"> — {w.detail}</span>}
                </li>
              ))}
            </ul>
          )}
          {p.truncated.length > 0 && <p class="muted">Truncated: {p.truncated.join(', ')}</p>}
        </>
      )}
    </Page>
  );
}
