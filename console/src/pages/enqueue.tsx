import { useEffect, useState } from 'preact/hooks';
import { api, DroverApiError, errorText, ok } from '../api';
import { Page } from '../components/bits';
import { navigate } from '../router';
import { useCan } from '../session';

const value = (e: Event) => (e.target as HTMLInputElement).value;

/**
 * Enqueue an ad-hoc job (`POST /jobs`, operator): a job type, a queue and a JSON payload. The api
 * validates the payload as the client does (the built-in job types' fields, plain JSON within
 * 256 KiB); its refusals are shown by field. On success the new run's page opens.
 */
export function Enqueue() {
  const can = useCan('operator');
  const [queues, setQueues] = useState<string[]>([]);
  const [jobType, setJobType] = useState('');
  const [queue, setQueue] = useState('default');
  const [payload, setPayload] = useState('{}');
  const [errors, setErrors] = useState<string[]>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    ok(api.GET('/api/v1/queues')).then(
      (qs) => setQueues(qs.items.map((q) => q.name)),
      () => undefined,
    );
  }, []);
  if (!can)
    return (
      <Page title="Enqueue a job">
        <p>Enqueuing needs role operator.</p>
      </Page>
    );
  const submit = async (e: Event) => {
    e.preventDefault();
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch (err) {
      return setErrors([`payload: not valid JSON: ${(err as Error).message}`]);
    }
    setBusy(true);
    try {
      const { runId } = await ok(api.POST('/api/v1/jobs', { body: { jobType, queue, payload: body } }));
      navigate(`/runs/${encodeURIComponent(runId)}`);
    } catch (err) {
      setErrors(
        err instanceof DroverApiError && err.fieldErrors.length
          ? err.fieldErrors.map((f) => `${f.path.replace(/^body\./, '')}: ${f.message}`)
          : [errorText(err)],
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <Page title="Enqueue a job">
      <p class="muted">
        One run of a job type, now, outside any routine: as <code>POST /jobs</code> and the client&apos;s{' '}
        <code>enqueue</code> make it.
      </p>
      {errors && (
        <div class="error" role="alert" data-testid="validation">
          <p>The api refused the job:</p>
          <ul>
            {errors.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </div>
      )}
      <form class="routine-form" onSubmit={(e) => void submit(e)} aria-label="Enqueue a job">
        <label>
          Job type
          <input value={jobType} required placeholder="sleep" onInput={(e) => setJobType(value(e))} />
        </label>
        <label>
          Queue
          <select value={queue} onChange={(e) => setQueue(value(e))}>
            {[...new Set([queue, ...queues])].map((q) => (
              <option key={q} value={q}>
                {q}
              </option>
            ))}
          </select>
        </label>
        <label class="wide">
          Payload (JSON)
          <textarea class="code" rows={6} spellcheck={false} value={payload} onInput={(e) => setPayload(value(e))} />
        </label>
        <div class="row-actions">
          <button type="submit" disabled={busy}>
            Enqueue
          </button>
        </div>
      </form>
    </Page>
  );
}
