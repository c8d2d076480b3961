import { useRef, useState } from 'preact/hooks';
import { INSTANT_HINT, parseInstant } from '@drover/core/human-time';
import { api, errorText, ok, type Routine, type Schemas } from '../api';
import { when } from '../format';
import { navigate } from '../router';
import { useCan } from '../session';
import { RunLink } from './bits';
import { Link } from './link';

/**
 * The routine page's edit, delete and backfill, beside pause and archive: operators and up, a
 * `system` routine's edit and delete admins only, as the api allows. Delete asks in a modal
 * dialog naming the routine; backfill shows the api's dry run (what would run) before it runs.
 */
export function RoutineManage({ routine, onChange }: { routine: Routine; onChange: () => void }) {
  const operator = useCan('operator');
  const admin = useCan('admin');
  const [backfilling, setBackfilling] = useState(false);
  if (!operator) return null;
  const mayChange = !routine.definition.system || admin;
  const mayBackfill = routine.status !== 'archived' && !routine.definition.selector;
  return (
    <>
      <div class="row-actions">
        {mayChange && <Link to={`/routines/${encodeURIComponent(routine.name)}/edit`}>Edit</Link>}
        {mayBackfill && (
          <button
            type="button"
            aria-expanded={backfilling}
            aria-label={`Backfill ${routine.name}…`}
            onClick={() => setBackfilling(!backfilling)}
          >
            Backfill…
          </button>
        )}
        {mayChange && <DeleteRoutine name={routine.name} />}
      </div>
      {backfilling && mayBackfill && <BackfillPanel name={routine.name} onDone={onChange} />}
    </>
  );
}

function DeleteRoutine({ name }: { name: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    try {
      await ok(api.DELETE('/api/v1/routines/{name}', { params: { path: { name } } }));
      dialog.current?.close();
      navigate('/routines');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        Delete…
      </button>
      {/* A modal dialog: focus moves in (to Cancel), stays in, Escape closes, and returns to the button. */}
      <dialog ref={dialog} aria-labelledby="delete-title" aria-describedby="delete-what">
        <h2 id="delete-title">Delete routine {name}?</h2>
        <p id="delete-what">
          It stops firing and its prepared runs never start; its past runs stay until their queue's retention ends them.
          To keep it but stop it, archive it instead.
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="row-actions">
          <button type="button" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
            Delete {name}
          </button>
        </div>
      </dialog>
    </>
  );
}

type Backfill = Schemas['BackfillResult'];
/** The slot a run id of a routine's slot names (`r-<routine>-<ms>`, `b-…`), as an instant. */
const slotOf = (id: string) => /-(\d{10,})$/.exec(id)?.[1];

function BackfillPanel({ name, onDone }: { name: string; onDone: () => void }) {
  const [from, setFrom] = useState('-1h');
  const [to, setTo] = useState('');
  const [preview, setPreview] = useState<Backfill & { body: { from: string; to: string } }>();
  const [done, setDone] = useState<Backfill>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const path = { params: { path: { name } } };
  const ask = async (e: Event) => {
    e.preventDefault();
    setDone(undefined);
    const now = Date.now();
    const body = {
      from: parseInstant(from, now),
      to: to.trim() ? parseInstant(to, now) : new Date(now - 1000).toISOString(),
    };
    if (!body.from) return setError(`From: "${from}" is not ${INSTANT_HINT}`);
    if (!body.to) return setError(`To: "${to}" is not ${INSTANT_HINT}`);
    setBusy(true);
    try {
      const b = { from: body.from, to: body.to };
      setPreview({
        ...(await ok(api.POST('/api/v1/routines/{name}/backfill', { ...path, body: { ...b, dryRun: true } }))),
        body: b,
      });
      setError(undefined);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const run = async () => {
    if (!preview) return;
    setBusy(true);
    try {
      setDone(await ok(api.POST('/api/v1/routines/{name}/backfill', { ...path, body: preview.body })));
      setPreview(undefined);
      onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-label={`Backfill ${name}`}>
      <form class="inline-form" onSubmit={(e) => void ask(e)}>
        <label>
          From{' '}
          <input
            value={from}
            onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
            aria-describedby="bf-hint"
          />
        </label>
        <label>
          To{' '}
          <input
            value={to}
            placeholder="now"
            onInput={(e) => setTo((e.target as HTMLInputElement).value)}
            aria-describedby="bf-hint"
          />
        </label>
        <button type="submit" disabled={busy}>
          Preview backfill
        </button>
        <span id="bf-hint" class="muted small">
          one run per slot in (from, to]; -2h, or an ISO instant (UTC); empty To: now
        </span>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {preview && (
        <div data-testid="backfill-preview" role="status">
          <p>
            {preview.created.length === 0
              ? 'Nothing to run: every slot in the range has its run already.'
              : `${preview.created.length} run${preview.created.length === 1 ? '' : 's'} would be created`}
            {preview.existing.length > 0 && `; ${preview.existing.length} slot(s) have their run already`}
            {preview.capped > 0 &&
              `; ${preview.capped}${preview.cappedExact ? '' : '+'} older slot(s) left out by maxCatchUp`}
            .
          </p>
          {preview.created.length > 0 && (
            <>
              <ul class="plain">
                {preview.created.slice(0, 20).map((id) => (
                  <li key={id}>
                    {when(new Date(Number(slotOf(id))).toISOString())} <code>{id}</code>
                  </li>
                ))}
                {preview.created.length > 20 && <li>… and {preview.created.length - 20} more</li>}
              </ul>
              <button type="button" disabled={busy} onClick={() => void run()}>
                Backfill {preview.created.length} run{preview.created.length === 1 ? '' : 's'}
              </button>
            </>
          )}
        </div>
      )}
      {done && (
        <div role="status" data-testid="backfill-done">
          <p>
            Backfilled: {done.created.length} created, {done.existing.length} had their run.
          </p>
          <ul class="plain">
            {done.created.slice(0, 20).map((id) => (
              <li key={id}>
                <RunLink id={id} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
