import type { ComponentChildren } from 'preact';
import type { RoutineStatus } from '@drover/core/words';
import type { RunStatus } from '../api';
import { redecided, relative, when } from '../format';
import { Link } from './link';

/** A run or routine status as a coloured word (the colour is never the only signal). */
export function Status({ status }: { status: RunStatus | RoutineStatus | string }) {
  return <span class={`badge s-${status}`}>{status}</span>;
}

/** A relative time ("3 min ago") with the exact time, in UTC, on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={when(iso)}>
      {relative(iso)}
    </time>
  );
}

/** Why a slot's run id ends in `.1`, `.2`: said wherever such an id is shown. */
export const REDECIDED_NOTE =
  "re-decided: this slot's run was armed ahead, then withdrawn when the routine changed (edited, paused, resumed) and decided again under a new id";

/** A run id linking to its page; a re-decided slot's id carries its explanation on hover. */
export function RunLink({ id }: { id: string }) {
  const rev = redecided(id);
  return (
    <Link to={`/runs/${encodeURIComponent(id)}`}>
      <span title={rev ? REDECIDED_NOTE : undefined}>{id}</span>
      {rev ? <span class="sr-only"> ({REDECIDED_NOTE})</span> : null}
    </Link>
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
