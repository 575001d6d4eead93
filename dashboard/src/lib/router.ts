import { useEffect, useState } from 'preact/hooks';

/**
 * Client-side routes live under /admin/app/… (contract section 7): the service answers the page for any of
 * them, so a reload never lands on an API path. The query string carries a page's range and sort.
 */
export const APP_BASE = '/admin/app';

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  const path = window.location.pathname.startsWith(APP_BASE) ? window.location.pathname.slice(APP_BASE.length) || '/' : '/';
  return { path, query: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((listener) => listener()));

export function navigate(path: string, replace = false): void {
  const url = path.startsWith('/admin/') ? path : `${APP_BASE}${path}`;
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  listeners.forEach((listener) => listener());
}

/** The current page's query with `changes` applied (null removes a key). */
export function withQuery(changes: Record<string, string | null>): string {
  const { path, query } = current();
  const next = new URLSearchParams(query);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  const search = next.toString();
  return `${path}${search ? `?${search}` : ''}`;
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const listener = () => setLocation(current());
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  return location;
}
