import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from './api';

export interface Resource<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload: () => void;
}

/** Loads `load()` now and whenever `deps` change or `reload` is called; keeps the last data while reloading. */
export function useResource<T>(load: () => Promise<T>, deps: unknown[]): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    latest.current().then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (err: unknown) => mine === seq.current && setState((s) => ({ ...s, error: errorText(err), loading: false })),
    );
  }, []);
  useEffect(reload, deps);
  return { ...state, reload };
}
