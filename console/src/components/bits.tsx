import type { ComponentChildren } from 'preact';
import type { RoutineStatus } from '@drover/core/words';
import type { RunStatus } from '../api';
import { relative, when } from '../format';

/** A run or routine status as a coloured word (the colour is never the only signal). */
export function Status({ status }: { status: RunStatus | RoutineStatus | string }) {
  return <span class={`badge s-${status}`}>{status}</span>;
}

/** A relative time with the exact local time on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={when(iso)}>
      {relative(iso)}
    </time>
  );
}

export function ErrorNote({ error }: { error?: string }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title">{props.title}</h1>
        {props.actions && <div class="actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted">{children}</p>;
}
