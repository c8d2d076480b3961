import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api';
import { Empty, ErrorNote, Page, RunLink, Status, Time } from '../components/bits';
import { Link } from '../components/link';
import { useResource } from '../resource';

type Batch = Schemas['Batch'];

/** Settled of total as a labelled bar, with the parked and canceled counts in words (not colour alone). */
function BatchProgress({ b }: { b: Batch }) {
  const failed = [b.parked && `${b.parked} parked`, b.canceled && `${b.canceled} canceled`].filter(Boolean).join(', ');
  return (
    <span class="batch-progress">
      <progress max={b.total} value={b.settled} aria-label={`batch ${b.id}: ${b.settled} of ${b.total} runs settled`} />{' '}
      <span class="count">
        {b.settled}/{b.total}
      </span>
      {failed && <span class="badge s-parked">{failed}</span>}
    </span>
  );
}

export function Batches() {
  const res = useResource(() => ok(api.GET('/api/v1/batches', { params: { query: { limit: 100 } } })), []);
  // Batches announce nothing on the cluster feed: an open one is looked at again every few seconds.
  const open = res.data?.batches.some((b) => b.status === 'open');
  useEffect(() => {
    if (!open) return;
    const t = setInterval(res.reload, 3_000);
    return () => clearInterval(t);
  }, [open]);
  const batches = res.data?.batches;
  return (
    <Page
      title="Batches"
      actions={
        <button type="button" onClick={res.reload}>
          Refresh
        </button>
      }
    >
      <ErrorNote error={res.error} />
      {batches && batches.length === 0 && <Empty>No batches in the last 30 days.</Empty>}
      {batches && batches.length > 0 && (
        <div class="scroll">
          <table>
            <caption class="sr-only">Batches, newest first</caption>
            <thead>
              <tr>
                <th scope="col">batch</th>
                <th scope="col">status</th>
                <th scope="col">progress</th>
                <th scope="col">created</th>
                <th scope="col">by</th>
              </tr>
            </thead>
            <tbody>
              {batches.map((b) => (
                <tr key={b.id}>
                  <th scope="row">
                    <Link to={`/batches/${encodeURIComponent(b.id)}`}>{b.id}</Link>
                  </th>
                  <td>
                    <Status status={b.status} />
                  </td>
                  <td>
                    <BatchProgress b={b} />
                  </td>
                  <td>
                    <Time iso={b.createdAt} />
                  </td>
                  <td>{b.createdBy ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

/** Follows `/api/v1/batches/{id}/stream`: each `progress` event is the whole batch; closed on `end`. */
function useBatchStream(id: string, onBatch: (b: Batch) => void): void {
  useEffect(() => {
    const source = new EventSource(`/api/v1/batches/${encodeURIComponent(id)}/stream`);
    source.addEventListener('progress', (m) => onBatch(JSON.parse((m as MessageEvent<string>).data) as Batch));
    source.addEventListener('end', () => source.close());
    return () => source.close();
  }, [id]);
}

const PAGE = 100;

export function BatchDetail({ id }: { id: string }) {
  const [offset, setOffset] = useState(0);
  const res = useResource(
    () => ok(api.GET('/api/v1/batches/{id}', { params: { path: { id }, query: { offset, limit: PAGE } } })),
    [id, offset],
  );
  const [live, setLive] = useState<Batch>();
  useBatchStream(id, setLive);
  const b = live ?? res.data;
  const d = res.data;
  return (
    <Page title={`Batch ${id}`}>
      <ErrorNote error={res.error} />
      {b && (
        <dl class="facts" data-testid="batch-fields">
          <dt>status</dt>
          <dd>
            <Status status={b.status} />
          </dd>
          <dt>progress</dt>
          <dd data-testid="batch-progress">
            <BatchProgress b={b} /> <span class="muted small">{b.percent} %</span>
          </dd>
          <dt>succeeded</dt>
          <dd class="count">{b.succeeded}</dd>
          <dt>created</dt>
          <dd>
            <Time iso={b.createdAt} /> by {b.createdBy ?? '—'}
          </dd>
          <dt>completed</dt>
          <dd>
            <Time iso={b.completedAt} />
          </dd>
          {b.callbacks.map((cb) => (
            <>
              <dt key={`${cb.on}-t`}>on {cb.on}</dt>
              <dd key={`${cb.on}-d`}>
                {cb.jobType} on {cb.queue}
                {cb.runId ? (
                  <>
                    {' → '}
                    <RunLink id={cb.runId} />
                  </>
                ) : (
                  <span class="muted small"> {b.status === 'complete' ? 'not due' : 'when every run settled'}</span>
                )}
              </dd>
            </>
          ))}
        </dl>
      )}
      {d && (
        <>
          <h2>Runs</h2>
          <ol class="plain" start={offset + 1} aria-label="runs of the batch">
            {d.runs.map((r) => (
              <li key={r}>
                <RunLink id={r} />
              </li>
            ))}
          </ol>
          <p>
            {offset > 0 && (
              <button type="button" onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                Previous
              </button>
            )}{' '}
            {d.nextOffset !== undefined && (
              <button type="button" onClick={() => setOffset(d.nextOffset!)}>
                Next
              </button>
            )}
          </p>
        </>
      )}
    </Page>
  );
}
