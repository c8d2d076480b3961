import { useState } from 'preact/hooks';
import { api, errorText, ok, type Schemas } from '../api';
import { when } from '../format';
import { useCan } from '../session';
import { Empty, Time } from './bits';

type Preview = Schemas['RoutinePreview'];

/**
 * A routine's next fires, each marked when a DST change moved it or an exclusion calendar or an
 * operator's skip will skip it; operators may skip one slot (recorded `skipped-by-operator`, an armed
 * run withdrawn) or undo their skip.
 */
export function NextFires({ name, preview, onChange }: { name: string; preview: Preview; onChange: () => void }) {
  const can = useCan('operator');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const act = async (slot: string, fn: () => Promise<unknown>) => {
    setBusy(slot);
    setError(undefined);
    try {
      await fn();
      onChange();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(undefined);
    }
  };
  const skip = (slot: string) =>
    act(slot, () => ok(api.POST('/api/v1/routines/{name}/skip', { params: { path: { name } }, body: { slot } })));
  const unskip = (slot: string) =>
    act(slot, () => ok(api.DELETE('/api/v1/routines/{name}/skips/{slot}', { params: { path: { name, slot } } })));
  return (
    <>
      <h2>Next fires</h2>
      {preview.paused && <p class="muted">Paused: these are the fires it would make once resumed.</p>}
      {error && <p role="alert">{error}</p>}
      {preview.items.length === 0 ? (
        <Empty>No upcoming fires (manual or finished trigger, or past its end).</Empty>
      ) : (
        <ol class="plain">
          {preview.items.map((p) => {
            const byOperator = p.skipped?.startsWith('skipped-by-operator');
            return (
              <li key={p.at}>
                {p.skipped ? <s>{when(p.at)}</s> : when(p.at)} <Time iso={p.at} />
                {p.trigger !== undefined ? (
                  // Several triggers: each fire in its own trigger's zone (the offset says which).
                  <span class="muted">
                    {' '}
                    ({p.local.slice(11, 16)} {p.local.slice(23)}, trigger {p.trigger})
                  </span>
                ) : (
                  preview.tz !== 'UTC' && (
                    <span class="muted">
                      {' '}
                      ({p.local.slice(11, 16)} in {preview.tz})
                    </span>
                  )
                )}
                {p.dst && (
                  <span class="badge s-drift" title={p.dst === 'gap' ? 'clocks spring forward' : 'clocks fall back'}>
                    DST {p.dst}
                  </span>
                )}
                {p.start && (
                  <span class="muted" title="jitterMs: the run starts this long after its slot">
                    {' '}
                    starts <Time iso={p.start} />
                  </span>
                )}
                {p.skipped && <span class="badge s-skipped">{p.skipped}</span>}
                {can && !p.skipped && (
                  <button
                    type="button"
                    class="small"
                    aria-label={`Skip ${name} at ${p.at}`}
                    disabled={busy === p.at}
                    onClick={() => void skip(p.at)}
                  >
                    skip
                  </button>
                )}
                {can && byOperator && (
                  <button
                    type="button"
                    class="small"
                    aria-label={`Undo the skip of ${name} at ${p.at}`}
                    disabled={busy === p.at}
                    onClick={() => void unskip(p.at)}
                  >
                    undo skip
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </>
  );
}
