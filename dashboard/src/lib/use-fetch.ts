import { useEffect, useState } from 'preact/hooks';
import { get } from './api.js';

export interface Fetched<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
}

/** GETs `path` (null: nothing yet) and keeps the last answer while the next one loads. */
export function useFetch<T>(path: string | null): Fetched<T> {
  const [state, setState] = useState<Fetched<T>>({ data: null, error: null, loading: path !== null });
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    get<T>(path).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return state;
}
