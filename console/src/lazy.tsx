import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * A page loaded on first visit (its own chunk): the editors and the audit log stay out of the
 * console's first load, which every page pays for.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  return function LazyPage(props: P) {
    const [page, setPage] = useState<{ C?: ComponentType<P>; error?: string }>({ C: loaded });
    useEffect(() => {
      if (page.C) return;
      load().then(
        (C) => setPage({ C: (loaded = C) }),
        (err: unknown) => setPage({ error: err instanceof Error ? err.message : String(err) }),
      );
    }, []);
    if (page.error)
      return (
        <p class="error" role="alert">
          Could not load this page: {page.error}
        </p>
      );
    return page.C ? <page.C {...props} /> : <p class="muted">Loading…</p>;
  };
}
