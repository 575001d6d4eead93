import { useEffect, useState } from 'preact/hooks';
import { get } from './api.js';
import type { Page } from './types.js';

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  /** GETs the same path again (after a write), keeping the answer shown meanwhile. */
  reload: () => void;
  /** Shows an answer the page already has (a write's response) without asking again. */
  set: (data: T) => void;
}

/**
 * GETs `path` (null: nothing yet) whenever it changes or `reload()` is called; `read` reads it another way
 * (`getAll`: every page of a list).
 */
export function useLoad<T>(path: string | null, read: (path: string) => Promise<T> = get): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: path !== null,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    read(path).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
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

/** A list of `{ items, nextCursor }` pages, `limit` at a time. */
export function usePaged<T>(path: string | null, limit = 25): Loaded<Page<T>> & Paging {
  const { cursor, paging } = useCursors(path);
  const loaded = useLoad<Page<T>>(path === null ? null : pagePath(path, limit, cursor));
  return { ...loaded, ...paging(loaded.data?.nextCursor) };
}

/** `path` with a page's `limit` and `cursor` in its query. */
export function pagePath(path: string, limit: number, cursor?: string | null): string {
  const separator = path.includes('?') ? '&' : '?';
  return `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
}

/** Every item of a cursor-paged list, its pages read one after another (100 at a time): for a picker that must offer them all. */
export async function getAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await get<Page<T>>(pagePath(path, 100, cursor));
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** While `pending` (an export or a delivery being written), GETs the loaded path again every `ms`; an error stops it. */
export function useReloadWhile(loaded: Omit<Loaded<unknown>, 'set'>, pending: boolean, ms = 1500): void {
  useEffect(() => {
    if (!pending || loaded.loading || loaded.error) return;
    const timer = setTimeout(loaded.reload, ms);
    return () => clearTimeout(timer);
  }, [pending, loaded.data, loaded.loading, loaded.error]);
}
