import type { DiffLine } from './line-diff';

const MARK = { same: ' ', del: '-', add: '+' } as const;

/** A line diff as text with `-`/`+` marks (the colour is never the only signal), removed before added. */
export function DiffView({ diff, label }: { diff: DiffLine[]; label: string }) {
  const added = diff.filter((l) => l.kind === 'add').length;
  const removed = diff.filter((l) => l.kind === 'del').length;
  return (
    <figure class="diff">
      <figcaption>
        {label}: {removed} line{removed === 1 ? '' : 's'} removed, {added} added
      </figcaption>
      <pre role="region" tabIndex={0} aria-label={label} data-testid="diff">
        {diff.map((l, i) =>
          l.kind === 'same' ? (
            <span key={i}>{`  ${l.text}\n`}</span>
          ) : (
            <span key={i} class={`d-${l.kind}`}>{`${MARK[l.kind]} ${l.text}\n`}</span>
          ),
        )}
      </pre>
    </figure>
  );
}
