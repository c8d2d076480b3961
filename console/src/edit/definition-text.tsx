import { useEffect, useRef } from 'preact/hooks';

/** A text that does not parse: the parser's words, and where (YAML gives a line and column). */
export interface ParseProblem {
  error: string;
  spot?: { line: number; col: number; offset: number };
}

/**
 * The whole definition as text (YAML or JSON), with the parse error under it, named by line and
 * column and tied to the field (`aria-describedby`). `focusAt` (bumped per attempt) puts the caret
 * where the error is, or on the start of a line the api named.
 */
export function DefinitionText({
  syntax,
  text,
  error,
  focusAt,
  onInput,
}: {
  syntax: 'YAML' | 'JSON';
  text: string;
  error?: ParseProblem;
  focusAt?: { offset: number; n: number };
  onInput: (text: string) => void;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = area.current;
    if (!el || !focusAt) return;
    el.focus();
    el.setSelectionRange(focusAt.offset, focusAt.offset);
  }, [focusAt?.n]);
  return (
    <>
      <label class="wide">
        Definition ({syntax})
        <textarea
          ref={area}
          class="code"
          rows={Math.min(30, Math.max(10, text.split('\n').length + 1))}
          spellcheck={false}
          value={text}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'definition-error' : undefined}
          onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      {error && (
        <p class="error" id="definition-error" data-testid="syntax-error">
          {error.spot ? `Line ${error.spot.line}, column ${error.spot.col}: ` : ''}
          {error.error} — not sent: fix the {syntax} first.
        </p>
      )}
    </>
  );
}

/** The offset of the start of 1-based `line` in `text`. */
export const offsetOfLine = (text: string, line: number) =>
  text
    .split('\n')
    .slice(0, line - 1)
    .reduce((n, l) => n + l.length + 1, 0);
