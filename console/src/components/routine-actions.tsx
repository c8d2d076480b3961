import { useState } from 'preact/hooks';
import { INSTANT_HINT, parseInstant } from '@drover/core/human-time';
import { api, errorText, ok, type Routine } from '../api';
import { when } from '../format';
import { navigate } from '../router';
import { useCan } from '../session';

/**
 * Pause (with an optional note and end), resume and trigger for one routine, and on its own page
 * (`archiving`) archive and unarchive: shown to operators and admins only (archiving a system
 * routine to admins only), as the api allows. An archived routine offers only unarchive: the api
 * refuses to trigger, pause or resume it.
 */
export function RoutineActions({
  routine,
  onChange,
  archiving = false,
}: {
  routine: Routine;
  onChange: () => void;
  archiving?: boolean;
}) {
  const can = useCan('operator');
  const admin = useCan('admin');
  const [pausing, setPausing] = useState(false);
  const [note, setNote] = useState('');
  const [until, setUntil] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
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
  const archiveShown = archiving && (!routine.definition.system || admin);
  const archive = (verb: 'archive' | 'unarchive') =>
    void act(async () => {
      await ok(api.POST(`/api/v1/routines/{name}/${verb}`, path));
      setConfirming(false);
    });
  if (routine.status === 'archived') {
    return (
      <div class="row-actions">
        {archiveShown && (
          <button
            type="button"
            disabled={busy}
            aria-label={`Unarchive ${routine.name}`}
            onClick={() => archive('unarchive')}
          >
            Unarchive
          </button>
        )}
        {error && (
          <span class="error" role="alert">
            {error}
          </span>
        )}
      </div>
    );
  }
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
      {archiveShown && (
        <button
          type="button"
          disabled={busy}
          aria-expanded={confirming}
          aria-label={`Archive ${routine.name}…`}
          onClick={() => setConfirming(!confirming)}
        >
          Archive…
        </button>
      )}
      {archiveShown && confirming && (
        <span class="inline-form">
          It stops firing until unarchived; its runs stay.{' '}
          <button type="button" disabled={busy} onClick={() => archive('archive')}>
            Archive {routine.name}
          </button>
        </span>
      )}
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
