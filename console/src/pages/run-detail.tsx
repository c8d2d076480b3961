import { useEffect, useState } from 'preact/hooks';
import { SETTLED_RUN_STATUSES } from '@drover/core/words';
import { api, errorText, ok, type Run } from '../api';
import { ApprovalActions, ApprovalFact } from '../components/approval';
import { ErrorNote, Page, REDECIDED_NOTE, Status, Time } from '../components/bits';
import { Link } from '../components/link';
import { RunFlowFacts } from '../components/run-flow';
import { RunLogs } from '../components/run-logs';
import { duration, json, progressPercent, redecided, runDuration, when } from '../format';
import { useResource } from '../resource';
import { navigate } from '../router';
import { useCan } from '../session';

type Live = 'following' | 'ended' | 'reconnecting';

/**
 * Follows one run's event stream (`/api/v1/runs/{id}/events`): each `status` event carries the
 * whole run, `progress` its handler's latest value. Closed on `end`, since EventSource would
 * otherwise reconnect to a finished run forever.
 */
function useRunStream(id: string, onRun: (r: Run) => void, onProgress: (p: unknown) => void): Live {
  const [live, setLive] = useState<Live>('following');
  useEffect(() => {
    const source = new EventSource(`/api/v1/runs/${encodeURIComponent(id)}/events`);
    const parse = (m: Event) => JSON.parse((m as MessageEvent<string>).data) as Record<string, unknown>;
    source.addEventListener('status', (m) => onRun(parse(m) as unknown as Run));
    source.addEventListener('progress', (m) => onProgress(parse(m).progress));
    const end = () => {
      source.close();
      setLive('ended');
    };
    source.addEventListener('end', end);
    source.addEventListener('removed', end);
    source.onopen = () => setLive('following');
    source.onerror = () => (source.readyState === EventSource.CLOSED ? end() : setLive('reconnecting'));
    return () => source.close();
    // The handlers only set state: the stream depends on the id alone.
  }, [id]);
  return live;
}

/** A running run's progress: a labelled bar when it has a percent, its other fields beside it. */
function ProgressBar({ value }: { value: unknown }) {
  const percent = progressPercent(value);
  const rest = typeof value === 'object' && value ? Object.entries(value).filter(([k]) => k !== 'percent') : [];
  const detail =
    percent === undefined ? JSON.stringify(value) : rest.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(' · ');
  return (
    <div class="progress-line" data-testid="run-progress">
      {percent !== undefined && (
        <>
          <label for="run-progress-bar">progress {Math.round(percent)} %</label>{' '}
          <progress id="run-progress-bar" max={100} value={percent} />{' '}
        </>
      )}
      {detail && <span class="muted small">{detail}</span>}
    </div>
  );
}

function Actions({ run, onChange }: { run: Run; onChange: (r?: Run) => void }) {
  const can = useCan('operator');
  const [error, setError] = useState<string>();
  if (!can) return null;
  const cancel = async () => {
    try {
      const res = await ok(api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: run.id } }, body: {} }));
      onChange(res.run);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const replay = async () => {
    try {
      const res = await ok(
        api.POST('/api/v1/queues/{name}/parked/{id}/replay', { params: { path: { name: run.queue, id: run.id } } }),
      );
      navigate(`/runs/${encodeURIComponent(res.runId)}`);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <>
      <ApprovalActions run={run} onChange={onChange} />
      {!SETTLED_RUN_STATUSES.includes(run.status) && (
        <button type="button" class="danger" onClick={() => void cancel()}>
          Cancel run
        </button>
      )}
      {run.status === 'parked' && !run.replayedAs && (
        <button type="button" onClick={() => void replay()}>
          Replay
        </button>
      )}
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

/** A long text shown to `max` characters (the run's JSON has it whole). */
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function RunDetail({ id }: { id: string }) {
  const res = useResource(() => ok(api.GET('/api/v1/runs/{id}', { params: { path: { id } } })), [id]);
  const [fresh, setFresh] = useState<Run>();
  const [progress, setProgress] = useState<unknown>();
  const live = useRunStream(id, setFresh, setProgress);
  const run = fresh ?? res.data;
  const shownProgress = progress ?? run?.progress;
  return (
    <Page title={`Run ${id}`} actions={run && <Actions run={run} onChange={(r) => (r ? setFresh(r) : res.reload())} />}>
      <ErrorNote error={run ? undefined : res.error} />
      {run && (
        <>
          <p data-testid="run-status">
            <Status status={run.status} />{' '}
            <span class="muted small" aria-live="polite">
              {live === 'following' ? 'following live' : live === 'ended' ? 'final' : 'reconnecting…'}
            </span>
          </p>
          {redecided(run.id) > 0 && (
            <p class="muted small">
              This id ends in .{redecided(run.id)}: {REDECIDED_NOTE}.
            </p>
          )}
          {run.status === 'running' && shownProgress !== undefined && shownProgress !== null && (
            <ProgressBar value={shownProgress} />
          )}
          <dl class="facts">
            <dt>routine</dt>
            <dd>
              {run.routine ? (
                <Link to={`/routines/${encodeURIComponent(run.routine)}`}>{run.routine}</Link>
              ) : (
                '— (ad hoc)'
              )}
            </dd>
            <dt>job type</dt>
            <dd>{run.jobType}</dd>
            <dt>queue</dt>
            <dd>{run.queue}</dd>
            <dt>source</dt>
            <dd>
              {run.source}
              {run.createdBy && ` by ${run.createdBy}`}
            </dd>
            <dt>attempt</dt>
            <dd>
              {run.attempt} of {run.maxAttempts}
              {run.nextAttemptAt && (
                <>
                  {' '}
                  · next <Time iso={run.nextAttemptAt} />
                </>
              )}
            </dd>
            <dt>slot</dt>
            <dd>{when(run.scheduledFor)}</dd>
            <dt>started / finished</dt>
            <dd>
              {when(run.startedAt)} / {when(run.finishedAt)} ({duration(runDuration(run))})
            </dd>
            {SETTLED_RUN_STATUSES.includes(run.status) && shownProgress !== undefined && shownProgress !== null && (
              <>
                <dt>last progress</dt>
                <dd>
                  <code>{JSON.stringify(shownProgress)}</code>
                </dd>
              </>
            )}
            {run.checkpoint && (
              <>
                <dt>checkpoint</dt>
                <dd data-testid="run-checkpoint">
                  <code>{cut(JSON.stringify(run.checkpoint.state), 120)}</code> · attempt {run.checkpoint.attempt} ·{' '}
                  {run.checkpoint.size} bytes · <Time iso={run.checkpoint.at} />
                </dd>
              </>
            )}
            {run.worker && (
              <>
                <dt>worker</dt>
                <dd>{run.worker}</dd>
              </>
            )}
            {run.approval && <ApprovalFact approval={run.approval} />}
            {run.reason && (
              <>
                <dt>reason</dt>
                <dd>{run.reason}</dd>
              </>
            )}
            {run.bufferedBehind && (
              <>
                <dt>buffered</dt>
                <dd>
                  {run.status === 'scheduled' ? 'waits for ' : 'waited for '}
                  <Link to={`/runs/${encodeURIComponent(run.bufferedBehind)}`}>{run.bufferedBehind}</Link>
                  {run.status === 'scheduled' ? ' to end (concurrencyPolicy buffer-one)' : ' to end'}
                </dd>
              </>
            )}
            {run.concurrencyKey !== undefined && (
              <>
                <dt>concurrency key</dt>
                <dd data-testid="run-key">
                  {run.concurrencyKey}
                  {run.waitingForKey && <span class="muted"> — waiting for a place under its key's limit</span>}
                </dd>
              </>
            )}
            {run.replayOf && (
              <>
                <dt>replay of</dt>
                <dd>
                  <Link to={`/runs/${encodeURIComponent(run.replayOf)}`}>{run.replayOf}</Link>
                </dd>
              </>
            )}
            {run.replayedAs && (
              <>
                <dt>replayed as</dt>
                <dd>
                  <Link to={`/runs/${encodeURIComponent(run.replayedAs)}`}>{run.replayedAs}</Link>
                </dd>
              </>
            )}
            {run.batch && (
              <>
                <dt>batch</dt>
                <dd>
                  <Link to={`/batches/${encodeURIComponent(run.batch)}`}>{run.batch}</Link>
                </dd>
              </>
            )}
            {run.flow && <RunFlowFacts run={run} />}
          </dl>
          <RunLogs id={run.id} />
          <h2>Payload</h2>
          <pre>{json(run.payload)}</pre>
          {run.result !== undefined && (
            <>
              <h2>Result</h2>
              <pre>{json(run.result)}</pre>
            </>
          )}
          <h2>Attempts</h2>
          {(run.errors ?? []).length === 0 && !run.error ? (
            <p class="muted">No failed attempts.</p>
          ) : (
            <ol class="attempts">
              {(run.errors ?? []).map((a) => (
                <li key={a.attempt}>
                  <strong>
                    attempt {a.attempt}: {a.kind}
                  </strong>{' '}
                  <span class="muted small">
                    {when(a.failedAt)}
                    {a.worker && ` on ${a.worker}`}
                  </span>
                  <p class="error">{a.message}</p>
                  {a.stack && (
                    <details>
                      <summary>stack</summary>
                      <pre>{a.stack}</pre>
                    </details>
                  )}
                </li>
              ))}
              {(run.errors ?? []).length === 0 && run.error && (
                <li>
                  <p class="error">{run.error.message}</p>
                  {run.error.stack && <pre>{run.error.stack}</pre>}
                </li>
              )}
            </ol>
          )}
        </>
      )}
    </Page>
  );
}
