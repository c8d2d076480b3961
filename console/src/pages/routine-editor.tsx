import { useEffect, useRef, useState } from 'preact/hooks';
import { api, DroverApiError, errorText, ok } from '../api';
import { ErrorNote, Page } from '../components/bits';
import { Link } from '../components/link';
import { draftText, fieldName, parseDraft, type Draft } from '../edit/draft';
import { DiffView } from '../edit/diff-view';
import { changed, lineDiff } from '../edit/line-diff';
import { RoutineForm } from '../edit/routine-form';
import { navigate } from '../router';
import { useCan } from '../session';

const NEW_ROUTINE: Draft = { name: '', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } };

/** The stored definition the edit started from, and its version for `If-Match`. */
interface Base {
  text: string;
  etag?: string;
}

async function loadBase(name: string): Promise<Base & { draft: Draft }> {
  const { data, response } = await api.GET('/api/v1/routines/{name}', { params: { path: { name } } });
  const draft = data!.definition as Draft;
  return { text: draftText(draft), etag: response.headers.get('ETag') ?? undefined, draft };
}

type Problem = { field: string; message: string }[];

/** The api's refusal as lines naming the field, or one line. */
function problemOf(err: unknown): Problem {
  if (err instanceof DroverApiError && err.fieldErrors.length) {
    return err.fieldErrors.map((e) => ({ field: fieldName(e.path), message: e.message }));
  }
  return [{ field: '', message: errorText(err) }];
}

/**
 * Create (`/routines/new`) or edit (`/routines/{name}/edit`) a routine: the common fields as a
 * form, the whole definition as JSON, the api's own validation (a what-if of the definition,
 * which writes nothing, so its messages name the field), then a line diff against the stored
 * definition before saving. An edit is written with `If-Match`: when someone else changed the
 * routine meanwhile (412), the diff is shown again against what is stored now.
 */
export function RoutineEditor({ name }: { name?: string }) {
  const can = useCan('operator');
  const creating = name === undefined;
  const [base, setBase] = useState<Base>();
  const [text, setText] = useState(creating ? draftText(NEW_ROUTINE) : '');
  const [tab, setTab] = useState<'form' | 'json'>(creating ? 'form' : 'json');
  const [queues, setQueues] = useState<string[]>([]);
  const [problem, setProblem] = useState<Problem>();
  const [note, setNote] = useState<string>();
  const [review, setReview] = useState<Draft>();
  const [busy, setBusy] = useState(false);
  const [loadError, setLoadError] = useState<string>();
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    ok(api.GET('/api/v1/queues')).then(
      (qs) => setQueues(qs.items.map((q) => q.name)),
      () => undefined,
    );
    if (creating) return setBase({ text: '' });
    loadBase(name).then(
      (b) => {
        setBase(b);
        setText(b.text);
      },
      (err: unknown) => setLoadError(errorText(err)),
    );
  }, [name]);
  // Focus follows the step (editing, reviewing, a conflict), never the first render.
  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current) heading.current?.focus();
    mounted.current = true;
  }, [review, note]);

  const parsed = parseDraft(text);
  const title = creating ? 'New routine' : `Edit routine ${name}`;
  if (!can)
    return (
      <Page title={title}>
        <p>Changing routines needs role operator.</p>
      </Page>
    );

  const validate = async (e: Event) => {
    e.preventDefault();
    setNote(undefined);
    if (!parsed.ok) return setProblem([{ field: 'JSON', message: parsed.error }]);
    setBusy(true);
    try {
      // The api's own validation, writing nothing: the definition as a one-routine bundle, with
      // the queues that exist, so an unknown queue is named as the apply would name it.
      await ok(
        api.POST('/api/v1/plan/what-if', {
          params: { query: { slots: 1, next: 0 } },
          body: { queues: queues.map((q) => ({ name: q })), routines: [parsed.draft] },
        }),
      );
      setProblem(undefined);
      setReview(parsed.draft);
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  };

  const save = async () => {
    if (!review) return;
    setBusy(true);
    try {
      if (creating) await ok(api.POST('/api/v1/routines', { body: review as never }));
      else {
        const header = base?.etag ? { 'If-Match': base.etag } : undefined;
        await ok(api.PUT('/api/v1/routines/{name}', { params: { path: { name }, header }, body: review as never }));
      }
      navigate(`/routines/${encodeURIComponent(String(review.name))}`);
    } catch (err) {
      if (err instanceof DroverApiError && err.status === 412 && !creating) {
        const fresh = await loadBase(name).catch((e: unknown) => setProblem(problemOf(e)));
        if (!fresh) return;
        setBase(fresh);
        setNote(
          `Someone else changed ${name} since you opened it. The diff below is against what is stored now: save again to replace it, or go back to editing.`,
        );
      } else {
        setProblem(problemOf(err));
        setReview(undefined);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title={title}>
      <h2 class="sr-only" tabIndex={-1} ref={heading}>
        {review ? 'Review the changes' : 'Definition'}
      </h2>
      <ErrorNote error={loadError} />
      {note && (
        <p class="error" role="alert">
          {note}
        </p>
      )}
      {problem && (
        <div class="error" role="alert" data-testid="validation">
          <p>The api refused the definition:</p>
          <ul>
            {problem.map((p, i) => (
              <li key={i}>
                {p.field && <code>{p.field}</code>} {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {base && review ? (
        <section aria-label="Review">
          {changed(lineDiff(base.text, draftText(review))) ? (
            <DiffView
              diff={lineDiff(base.text, draftText(review))}
              label={creating ? 'The new routine' : `Changes to ${name}`}
            />
          ) : (
            <p>No changes: the definition is the stored one.</p>
          )}
          <div class="row-actions">
            <button type="button" disabled={busy} onClick={() => void save()}>
              {creating ? 'Create routine' : `Save ${name}`}
            </button>
            <button type="button" disabled={busy} onClick={() => setReview(undefined)}>
              Back to editing
            </button>
          </div>
        </section>
      ) : base ? (
        <form onSubmit={(e) => void validate(e)} aria-label={title}>
          <div role="group" aria-label="Edit as" class="tabs">
            {(['form', 'json'] as const).map((t) => (
              <button key={t} type="button" aria-pressed={tab === t} onClick={() => setTab(t)}>
                {t === 'form' ? 'Form' : 'JSON'}
              </button>
            ))}
          </div>
          {tab === 'form' ? (
            parsed.ok ? (
              <RoutineForm
                draft={parsed.draft}
                creating={creating}
                queues={queues}
                onChange={(d) => setText(draftText(d))}
              />
            ) : (
              <p class="error">The JSON does not parse ({parsed.error}): fix it in the JSON tab.</p>
            )
          ) : (
            <label class="wide">
              Definition (JSON)
              <textarea
                class="code"
                rows={Math.min(30, Math.max(10, text.split('\n').length + 1))}
                spellcheck={false}
                value={text}
                onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
              />
            </label>
          )}
          <div class="row-actions">
            <button type="submit" disabled={busy}>
              Review changes
            </button>
            <Link to={creating ? '/routines' : `/routines/${encodeURIComponent(name)}`}>Cancel</Link>
          </div>
        </form>
      ) : (
        !loadError && <p class="muted">Loading…</p>
      )}
    </Page>
  );
}
