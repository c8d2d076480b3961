import { useState } from 'preact/hooks';
import { INSTANT_HINT, parseInstant } from '@drover/core/human-time';
import { api, errorText, ok, type Routine } from '../api';
import { when } from '../format';
import { navigate } from '../router';
import { useCan } from '../session';

/**
 * Pause (with an optional note and end), resume and trigger for one routine: shown to operators
 * and admins only; the api refuses viewers anyway.
 */
export function RoutineActions({ routine, onChange }: { routine: Routine; onChange: () => void }) {
  const can = useCan('operator');
  const [pausing, setPausing] = useState(false);
  const [note, setNote] = useState('');
  const [until, setUntil] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  if (!can) return null;
  const path = { params: { path: { name: routine.name } } };
  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
      onChange();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const trigger = () =>
    act(async () => {
      const { runId } = await ok(api.POST('/api/v1/routines/{name}/trigger', { ...path, body: {} }));
      navigate(`/runs/${encodeURIComponent(runId)}`);
    });
  const pause = (e: Event) => {
    e.preventDefault();
    // Read as the CLI reads `--until`: `2h`, `tomorrow 09:00` (UTC) or an ISO instant.
    const at = until.trim() ? parseInstant(until, Date.now()) : undefined;
    if (until.trim() && !at) return setError(`Until: "${until}" is not ${INSTANT_HINT}`);
    const body = { ...(note && { note }), ...(at && { until: at }) };
    void act(async () => {
      await ok(api.POST('/api/v1/routines/{name}/pause', { ...path, body }));
      setPausing(false);
    });
  };
  const paused = routine.status === 'paused';
  return (
    <div class="row-actions">
      <button type="button" disabled={busy} onClick={() => void trigger()} aria-label={`Trigger ${routine.name} now`}>
        Trigger
      </button>
      {paused ? (
        <button
          type="button"
          disabled={busy}
          aria-label={`Resume ${routine.name}`}
          onClick={() => void act(() => ok(api.POST('/api/v1/routines/{name}/resume', path)))}
        >
          Resume
        </button>
      ) : (
        <button
          type="button"
          disabled={busy}
          aria-expanded={pausing}
          aria-label={`Pause ${routine.name}…`}
          onClick={() => setPausing(!pausing)}
        >
          Pause…
        </button>
      )}
      {pausing && !paused && (
        <form class="inline-form" onSubmit={pause} aria-label={`Pause ${routine.name}`}>
          <label>
            Note <input value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} maxLength={500} />
          </label>
          <label>
            Until{' '}
            <input
              value={until}
              placeholder="2h, tomorrow 09:00"
              aria-describedby={`until-hint-${routine.name}`}
              onInput={(e) => setUntil((e.target as HTMLInputElement).value)}
            />
          </label>
          <span id={`until-hint-${routine.name}`} class="muted small">
            {until.trim() && parseInstant(until, Date.now())
              ? `resumes ${when(parseInstant(until, Date.now()))}`
              : 'empty: until resumed; or 2h, tomorrow 09:00 (UTC), an ISO instant'}
          </span>
          <button type="submit" disabled={busy}>
            Pause {routine.name}
          </button>
        </form>
      )}
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
