import { useEffect, useState } from 'preact/hooks';

/** The console's path below /ui (`/runs/abc`), without a trailing slash; `/` for the overview. */
export const BASE = '/ui';

function current(): string {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return p.replace(/\/+$/, '') || '/';
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

/** Goes to a console path (`/routines?q=x`) without a page load. */
export function navigate(to: string, replace = false): void {
  const url = BASE + (to === '/' ? '/' : to);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
  window.scrollTo(0, 0);
}

/** The current path and query, re-rendering on navigation. */
export function useRoute(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((t) => t + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return { path: current(), query: new URLSearchParams(location.search) };
}

/** `/routines/:name` against `/routines/nightly` → `{name: 'nightly'}`, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/');
  const a = path.split('/');
  if (p.length !== a.length) return undefined;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const seg = p[i]!;
    if (seg.startsWith(':')) out[seg.slice(1)] = decodeURIComponent(a[i]!);
    else if (seg !== a[i]) return undefined;
  }
  return out;
}
