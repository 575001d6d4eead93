import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Formatter } from '../i18n/format.js';
import type { CountKey, Lang, MessageKey } from '../i18n/messages.js';
import type { Me } from './types.js';

export interface AppContext {
  lang: Lang;
  t: (key: MessageKey, params?: Record<string, string | number>) => string;
  /** A count's message in the form the language's plural rules pick for `count`, the count written as `fmt.number` writes it. */
  tn: (key: CountKey, count: number, params?: Record<string, string | number>) => string;
  fmt: Formatter;
  me: Me;
  /** Write controls are offered only to a signed-in staff member (a support session reads only). */
  canWrite: boolean;
  can: (permission: Me['permissions'][number]) => boolean;
  entitled: (entitlement: Me['entitlements'][number]) => boolean;
}

export const App = createContext<AppContext | null>(null);

export function useApp(): AppContext {
  const context = useContext(App);
  if (!context) throw new Error('useApp outside the signed-in shell');
  return context;
}

/** A bilingual value in the current language: `label_en` / `label_ar`, `message_en` / `message_ar`. */
export function pick(lang: Lang, value: object, stem: string): string {
  const bilingual = value as Record<string, unknown>;
  return String(bilingual[`${stem}_${lang}`] ?? bilingual[`${stem}_en`] ?? '');
}
