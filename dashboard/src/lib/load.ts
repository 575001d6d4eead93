import { useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  /** Reads the same again (after a write), keeping the answer shown meanwhile. */
  reload: () => void;
  /** Shows an answer the page already has (a write's response) without asking again. */
  set: (data: T) => void;
}

/**
 * Reads `read` (null: nothing yet) whenever one of `inputs` (what it asks, e.g. the path's id) changes or
 * `reload()` is called.
 */
export function useLoad<T>(read: (() => Promise<T>) | null, inputs: readonly unknown[] = []): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: read !== null,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (read === null) return;
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    read().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [read === null, ...inputs, tick]);
  return {
    ...state,
    reload: () => setTick((n) => n + 1),
    set: (data) => setState({ data, error: null, loading: false }),
  };
}

export interface Paging {
  page: number;
  next: (() => void) | null;
  previous: (() => void) | null;
}

/**
 * Paging with the API's `cursor`: the cursors of the pages before this one are kept so that Previous goes
 * back; a new `start` (another list, range or sort) goes back to the first page.
 */
export function useCursors(start: string | null): {
  cursor: string | undefined;
  paging: (nextCursor: string | null | undefined) => Paging;
} {
  const [cursors, setCursors] = useState<string[]>([]);
  useEffect(() => setCursors([]), [start]);
  return {
    cursor: cursors[cursors.length - 1],
    paging: (nextCursor) => ({
      page: cursors.length + 1,
      next: nextCursor ? () => setCursors([...cursors, nextCursor]) : null,
      previous: cursors.length ? () => setCursors(cursors.slice(0, -1)) : null,
    }),
  };
}

/** The `limit` and `cursor` of a page of a cursor-paged list. */
export interface PageQuery {
  limit: number;
  cursor?: string;
}

/** One page of a cursor-paged list, read by `read`, `limit` at a time; `inputs` as useLoad's (a new one starts again). */
export function usePaged<T extends { nextCursor: string | null }>(
  read: ((page: PageQuery) => Promise<T>) | null,
  inputs: readonly unknown[] = [],
  limit = 25,
): Loaded<T> & Paging {
  const { cursor, paging } = useCursors(read === null ? null : JSON.stringify(inputs));
  const loaded = useLoad(read && (() => read({ limit, cursor })), [...inputs, cursor]);
  return { ...loaded, ...paging(loaded.data?.nextCursor) };
}

/** Every item of a cursor-paged list, its pages read one after another (100 at a time): for a picker that must offer them all. */
export async function getAll<T>(read: (page: PageQuery) => Promise<{ items: T[]; nextCursor: string | null }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await read({ limit: 100, cursor });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** While `pending` (an export or a delivery being written), reads the loaded answer again every `ms`; an error stops it. */
export function useReloadWhile(loaded: Omit<Loaded<unknown>, 'set'>, pending: boolean, ms = 1500): void {
  useEffect(() => {
    if (!pending || loaded.loading || loaded.error) return;
    const timer = setTimeout(loaded.reload, ms);
    return () => clearTimeout(timer);
  }, [pending, loaded.data, loaded.loading, loaded.error]);
}
