import { useEffect, useRef, useState } from 'preact/hooks';
import { api, DroverApiError, errorText, ok } from '../api';
import { ErrorNote, Page } from '../components/bits';
import { Link } from '../components/link';
import { DefinitionText, offsetOfLine, type ParseProblem } from '../edit/definition-text';
import { draftText, fieldName, parseDraft, sameDraft, type Draft } from '../edit/draft';
import { DiffView } from '../edit/diff-view';
import { changed, lineDiff } from '../edit/line-diff';
import { RoutineForm } from '../edit/routine-form';
import { navigate } from '../router';
import { useCan } from '../session';

const NEW_ROUTINE: Draft = { name: '', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' } };

/** The YAML half of the editor, with the `yaml` package: its own chunk, loaded once on first use. */
type YamlText = typeof import('../edit/yaml-text');
let yamlText: Promise<YamlText> | undefined;
const loadYaml = () => (yamlText ??= import('../edit/yaml-text'));

type Mode = 'form' | 'yaml' | 'json';
const MODES: Record<Mode, string> = { form: 'Form', yaml: 'YAML', json: 'JSON' };

/** The stored definition the edit started from (none for a new one), and its version for `If-Match`. */
interface Base {
  draft?: Draft;
  etag?: string;
}

async function loadBase(name: string): Promise<Base> {
  const { data, response } = await api.GET('/api/v1/routines/{name}', { params: { path: { name } } });
  return { draft: data!.definition as Draft, etag: response.headers.get('ETag') ?? undefined };
}

type Problem = { field: string; message: string; line?: number }[];

/** The api's refusal as lines naming the field, or one line. */
function problemOf(err: unknown): Problem {
  if (err instanceof DroverApiError && err.fieldErrors.length) {
    return err.fieldErrors.map((e) => ({ field: fieldName(e.path), message: e.message }));
  }
  return [{ field: '', message: errorText(err) }];
}

/** A definition as the text of `mode`: YAML for the YAML tab, else JSON (the form edits the JSON). */
const textOf = (d: Draft | undefined, mode: Mode, y: YamlText | undefined) =>
  mode === 'yaml' ? y!.routineYaml(d) : draftText(d);

/**
 * Create (`/routines/new`) or edit (`/routines/{name}/edit`) a routine: the common fields as a
 * form, the whole definition as YAML (a routine as a policy file writes it) or JSON. A text that
 * does not parse is named by line and column and sent nowhere; one that does is checked by the
 * api's own validation (a what-if of the definition, which writes nothing, so its messages name
 * the field), then shown as a line diff against the stored definition, both rendered the same
 * way (YAML unless editing JSON) so only what changed shows. An unchanged definition sends
 * nothing. An edit is written with `If-Match`: when someone else changed the routine meanwhile
 * (412), the diff is shown again against what is stored now.
 */
export function RoutineEditor({ name }: { name?: string }) {
  const can = useCan('operator');
  const creating = name === undefined;
  const [base, setBase] = useState<Base>();
  const [mode, setMode] = useState<Mode>(creating ? 'form' : 'yaml');
  const [text, setText] = useState(creating ? draftText(NEW_ROUTINE) : '');
  const [y, setY] = useState<YamlText>();
  const [checked, setChecked] = useState(false);
  const [focusAt, setFocusAt] = useState<{ offset: number; n: number }>();
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
    if (creating) return setBase({});
    Promise.all([loadBase(name), loadYaml()]).then(
      ([b, yt]) => {
        setY(yt);
        setBase(b);
        setText(yt.routineYaml(b.draft));
      },
      (err: unknown) => setLoadError(errorText(err)),
    );
  }, [name]);
  // Focus follows the step (editing, reviewing, a conflict), never the first render nor a note
  // going away (the caret may just have gone to a parse error).
  const mounted = useRef(false);
  const lastReview = useRef(review);
  useEffect(() => {
    const moved = lastReview.current !== review;
    lastReview.current = review;
    if (mounted.current && (moved || note)) heading.current?.focus();
    mounted.current = true;
  }, [review, note]);

  const parsed: { ok: true; draft: Draft } | ({ ok: false } & ParseProblem) =
    mode !== 'yaml' ? parseDraft(text) : y ? y.parseRoutineYaml(text) : { ok: false, error: 'loading the YAML parser' };
  const title = creating ? 'New routine' : `Edit routine ${name}`;
  if (!can)
    return (
      <Page title={title}>
        <p>Changing routines needs role operator.</p>
      </Page>
    );

  /** Shows the parse error under the text (kept up to date while typing) and puts the caret at it. */
  const refuse = (p: ParseProblem) => {
    setChecked(true);
    setFocusAt({ offset: p.spot?.offset ?? 0, n: (focusAt?.n ?? 0) + 1 });
  };

  const switchTo = async (next: Mode) => {
    if (next === mode) return;
    if (!parsed.ok) return refuse(parsed);
    const yt = next === 'yaml' ? await loadYaml().catch((e: unknown) => void setLoadError(errorText(e))) : y;
    if (next === 'yaml' && !yt) return;
    setY(yt || undefined);
    setChecked(false);
    // Form and JSON share the JSON text; YAML is written afresh from the definition.
    if (next === 'yaml' || mode === 'yaml') setText(textOf(parsed.draft, next, yt || undefined));
    setMode(next);
  };

  const validate = async (e: Event) => {
    e.preventDefault();
    setNote(undefined);
    if (!parsed.ok) return refuse(parsed);
    setChecked(false);
    if (!creating && sameDraft(base?.draft, parsed.draft)) {
      setProblem(undefined);
      return setNote('No changes: the definition is the stored one, nothing to save.');
    }
    setBusy(true);
    try {
      const yt = await loadYaml();
      setY(yt);
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
      const p = problemOf(err);
      setProblem(mode === 'yaml' && y ? p.map((l) => ({ ...l, line: y.lineOfField(text, l.field) })) : p);
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

  const diffMode = mode === 'json' ? 'json' : 'yaml';
  const diff = base && review && lineDiff(textOf(base.draft, diffMode, y), textOf(review, diffMode, y));
  const syntax = checked && !parsed.ok ? parsed : undefined;
  return (
    <Page title={title}>
      <h2 class="sr-only" tabIndex={-1} ref={heading}>
        {review ? 'Review the changes' : 'Definition'}
      </h2>
      <ErrorNote error={loadError} />
      {note && (
        <p class={review ? 'error' : undefined} role={review ? 'alert' : 'status'} data-testid="note">
          {note}
        </p>
      )}
      {problem && (
        <div class="error" role="alert" data-testid="validation">
          <p>The api refused the definition:</p>
          <ul>
            {problem.map((p, i) => (
              <li key={i}>
                {p.field && <code>{p.field}</code>}
                {p.line !== undefined && (
                  <>
                    {' '}
                    <button
                      type="button"
                      class="link"
                      onClick={() => setFocusAt({ offset: offsetOfLine(text, p.line!), n: (focusAt?.n ?? 0) + 1 })}
                    >
                      line {p.line}
                    </button>
                  </>
                )}{' '}
                {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {base && review && diff ? (
        <section aria-label="Review">
          {changed(diff) ? (
            <DiffView diff={diff} label={creating ? 'The new routine' : `Changes to ${name}`} />
          ) : (
            <p>No changes: the definition is the stored one.</p>
          )}
          <div class="row-actions">
            {changed(diff) && (
              <button type="button" disabled={busy} onClick={() => void save()}>
                {creating ? 'Create routine' : `Save ${name}`}
              </button>
            )}
            <button type="button" disabled={busy} onClick={() => setReview(undefined)}>
              Back to editing
            </button>
          </div>
        </section>
      ) : base ? (
        <form onSubmit={(e) => void validate(e)} aria-label={title}>
          <div role="group" aria-label="Edit as" class="tabs">
            {(Object.keys(MODES) as Mode[]).map((t) => (
              <button key={t} type="button" aria-pressed={mode === t} onClick={() => void switchTo(t)}>
                {MODES[t]}
              </button>
            ))}
          </div>
          {mode === 'form' ? (
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
            <DefinitionText
              syntax={mode === 'yaml' ? 'YAML' : 'JSON'}
              text={text}
              error={syntax}
              focusAt={focusAt}
              onInput={setText}
            />
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
