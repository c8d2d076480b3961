import type { ComponentChildren } from 'preact';
import { BASE, navigate } from '../router';

/** An anchor that navigates inside the console (middle click and ctrl-click still open a tab). */
export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a
      href={BASE + props.to}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
