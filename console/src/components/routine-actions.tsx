import { useState } from 'preact/hooks';
import { api, errorText, ok, type Routine } from '../api';
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
    const body = { ...(note && { note }), ...(until && { until: new Date(until).toISOString() }) };
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
              type="datetime-local"
              value={until}
              onInput={(e) => setUntil((e.target as HTMLInputElement).value)}
            />
          </label>
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
