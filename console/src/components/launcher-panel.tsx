import { useState } from 'preact/hooks';
import { api, errorText, ok, type Routine } from '../api';
import { when } from '../format';
import { useCan } from '../session';
import { Time } from './bits';

/**
 * A routine's launcher health on its page: launch failures in a row (condition checks that threw or
 * timed out), the backoff's end, the newest error, and the disable with its reason and time. A routine
 * the launcher disabled offers operators an Enable button (`POST …/enable`).
 */
export function LauncherPanel({ routine, onChange }: { routine: Routine; onChange: () => void }) {
  const can = useCan('operator');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const l = routine.launcher;
  const enable = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await ok(api.POST('/api/v1/routines/{name}/enable', { params: { path: { name: routine.name } } }));
      onChange();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-label="Launcher health">
      <h2>Launcher</h2>
      {l.consecutiveFailures === 0 && !routine.disabledReason ? (
        <p class="muted">Healthy: no launch failures in a row.</p>
      ) : (
        <dl class="facts">
          <dt>failures in a row</dt>
          <dd data-launcher="failures">{l.consecutiveFailures}</dd>
          <dt>backoff until</dt>
          <dd>
            {l.backoffUntil ? (
              <>
                {when(l.backoffUntil)} <Time iso={l.backoffUntil} />
              </>
            ) : (
              '—'
            )}
          </dd>
          <dt>last error</dt>
          <dd>{l.lastError ?? '—'}</dd>
          {routine.disabledReason && (
            <>
              <dt>disabled</dt>
              <dd class="error" data-launcher="reason">
                {routine.disabledReason}
                {l.disabledAt && (
                  <span class="muted">
                    {' '}
                    (<Time iso={l.disabledAt} />)
                  </span>
                )}
              </dd>
            </>
          )}
        </dl>
      )}
      {routine.disabledReason && can && (
        <div class="row-actions">
          <button type="button" disabled={busy} aria-label={`Enable ${routine.name}`} onClick={() => void enable()}>
            Enable
          </button>
          <span class="muted small">forgets the failures; it fires on its schedule again</span>
          {error && (
            <span class="error" role="alert">
              {error}
            </span>
          )}
        </div>
      )}
    </section>
  );
}
