import { render, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ProblemView } from './components/Problem.js';
import { formatter, NUMBERING_SYSTEMS, type NumberingSystem } from './i18n/format.js';
import { LANGS, translate, translateCount, type Lang, type MessageKey } from './i18n/messages.js';
import { answer, client, get, hasAccessCookie, refresh, whenSessionEnds } from './lib/api.js';
import { App, useApp, type AppContext } from './lib/app-context.js';
import { useLoad } from './lib/load.js';
import { reportTitle } from './lib/reports.js';
import { navigate, useLocation } from './lib/router.js';
import type { Me, Status } from './lib/types.js';
import { Overview } from './pages/Overview.js';
import { Report } from './pages/Report.js';
import { InsightsNav, InsightsPage } from './pages/insights/routes.js';
import { DataHubPage } from './pages/data-hub/index.js';
import './styles.css';

const LANG_KEY = 'dashboard.lang';
const STORE_KEY = 'dashboard.storeId';
/**
 * Set while this browser holds a session, so that "your session has ended" is said only to someone who had
 * one, and so that a browser that never signed in (or signed out) asks the service nothing it must refuse.
 */
const SIGNED_IN_KEY = 'dashboard.signedIn';
/** The member's digits in Arabic (`dashboard.digits.<staff id>`), kept in this browser. */
const digitsKey = (me: Me) => `dashboard.digits.${me.staff?.id ?? 'support'}`;

function initialLang(): Lang {
  const saved = localStorage.getItem(LANG_KEY);
  if (saved === 'en' || saved === 'ar') return saved;
  return navigator.language.startsWith('ar') ? 'ar' : 'en';
}

function applyLang(lang: Lang): void {
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === 'ar' ? 'rtl' : 'ltr';
  document.title = translate(lang, 'app.title');
}

function Root() {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const setLang = useCallback((next: Lang) => {
    localStorage.setItem(LANG_KEY, next);
    setLangState(next);
  }, []);
  useEffect(() => applyLang(lang), [lang]);
  const endSession = useCallback(() => {
    setEnded(localStorage.getItem(SIGNED_IN_KEY) === '1');
    localStorage.removeItem(SIGNED_IN_KEY);
    setMe(null);
  }, []);
  const loadMe = useCallback(async () => {
    // No access cookie, no access token to show: a browser that signed in renews its session first; one that
    // never did (or signed out) goes straight to the sign-in form, with no request the service would refuse.
    if (!hasAccessCookie() && (localStorage.getItem(SIGNED_IN_KEY) !== '1' || !(await refresh()))) return endSession();
    get('/admin/auth/me').then(
      (answer) => {
        localStorage.setItem(SIGNED_IN_KEY, '1');
        setMe(answer);
      },
      () => setMe(null),
    );
  }, []);
  useEffect(() => {
    whenSessionEnds(endSession);
    void loadMe();
  }, [loadMe]);
  if (me === undefined) return <p role="status">{translate(lang, 'app.loading')}</p>;
  if (me === null)
    return (
      <SignIn
        lang={lang}
        setLang={setLang}
        ended={ended}
        onSignedIn={() => {
          setEnded(false);
          void loadMe();
        }}
      />
    );
  return (
    <Shell
      me={me}
      lang={lang}
      setLang={setLang}
      onSignedOut={() => {
        localStorage.removeItem(SIGNED_IN_KEY);
        setMe(null);
      }}
    />
  );
}

function LanguageSwitch({ lang, setLang }: { lang: Lang; setLang: (lang: Lang) => void }) {
  return (
    <label class="lang">
      <span>{translate(lang, 'top.language')}</span>
      <select value={lang} onChange={(event) => setLang(event.currentTarget.value as Lang)} name="language">
        {LANGS.map((code) => (
          <option value={code} key={code} lang={code}>
            {translate(code, `lang.${code}` as MessageKey)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Arabic-Indic or Western digits, for the Arabic pages (the English ones write Western digits). */
function DigitsSwitch({ numbering, setNumbering }: { numbering: NumberingSystem; setNumbering: (numbering: NumberingSystem) => void }) {
  const { t } = useApp();
  return (
    <label class="lang">
      <span>{t('top.digits')}</span>
      <select value={numbering} onChange={(event) => setNumbering(event.currentTarget.value as NumberingSystem)} name="digits">
        {NUMBERING_SYSTEMS.map((system) => (
          <option value={system} key={system}>
            {t(`digits.${system}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Cookie transport: the service sets HttpOnly cookies; the page keeps only the store id, for next time. */
function SignIn({
  lang,
  setLang,
  ended,
  onSignedIn,
}: {
  lang: Lang;
  setLang: (lang: Lang) => void;
  ended: boolean;
  onSignedIn: () => void;
}) {
  const t = (key: MessageKey) => translate(lang, key);
  const initialStore = new URLSearchParams(window.location.search).get('store') ?? localStorage.getItem(STORE_KEY) ?? '';
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const storeId = String(form.get('storeId') ?? '').trim();
    setBusy(true);
    setError(null);
    try {
      await answer(
        client.POST('/admin/auth/sign-in', {
          body: {
            storeId,
            email: String(form.get('email') ?? '').trim(),
            password: String(form.get('password') ?? ''),
            transport: 'cookie',
          },
        }),
      );
      localStorage.setItem(STORE_KEY, storeId);
      onSignedIn();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <div class="sign-in-top">
        <LanguageSwitch lang={lang} setLang={setLang} />
      </div>
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">{t('signIn.title')}</h1>
        {ended ? <p role="status">{t('error.signInAgain')}</p> : null}
        <label>
          <span>{t('signIn.storeId')}</span>
          <input name="storeId" required autoComplete="organization" value={initialStore} dir="ltr" />
        </label>
        <label>
          <span>{t('signIn.email')}</span>
          <input name="email" type="email" required autoComplete="username" dir="ltr" />
        </label>
        <label>
          <span>{t('signIn.password')}</span>
          <input name="password" type="password" required autoComplete="current-password" dir="ltr" />
        </label>
        {error ? <ProblemView error={error} lang={lang} /> : null}
        <button type="submit" disabled={busy}>
          {busy ? t('signIn.busy') : t('signIn.submit')}
        </button>
      </form>
      <SupportEntry lang={lang} />
    </main>
  );
}

const SUPPORT_ERRORS = new Set(['unauthenticated', 'token_expired']);

/**
 * A support agent's way in: a native form post (no script handles it), so the token goes from the field to
 * HttpOnly cookies set by the service, which then redirects here signed in, or back with `support_error`.
 */
function SupportEntry({ lang }: { lang: Lang }) {
  const t = (key: MessageKey) => translate(lang, key);
  const refused = new URLSearchParams(window.location.search).get('support_error');
  return (
    <form method="post" action="/admin/auth/support-session" class="support-entry" aria-labelledby="support-entry-title">
      <h2 id="support-entry-title">{t('signIn.support.title')}</h2>
      <p id="support-entry-hint">{t('signIn.support.hint')}</p>
      {refused ? (
        <p class="problem" role="alert" data-code={refused}>
          {t(SUPPORT_ERRORS.has(refused) ? (`signIn.support.${refused}` as MessageKey) : 'error.title')}
        </p>
      ) : null}
      <label>
        <span>{t('signIn.support.token')}</span>
        <textarea
          name="accessToken"
          required
          rows={3}
          dir="ltr"
          spellcheck={false}
          autoComplete="off"
          aria-describedby="support-entry-hint"
        />
      </label>
      <button type="submit">{t('signIn.support.submit')}</button>
    </form>
  );
}

function Shell({ me, lang, setLang, onSignedOut }: { me: Me; lang: Lang; setLang: (lang: Lang) => void; onSignedOut: () => void }) {
  const location = useLocation();
  const [arabicDigits, setArabicDigits] = useState<NumberingSystem>(() =>
    localStorage.getItem(digitsKey(me)) === 'latn' ? 'latn' : 'arab',
  );
  const chooseDigits = (numbering: NumberingSystem) => {
    localStorage.setItem(digitsKey(me), numbering);
    setArabicDigits(numbering);
  };
  const numbering = lang === 'ar' ? arabicDigits : 'latn';
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [location.path]);
  const canRead = me.permissions.some((permission) => /^insights\.\w+\.view$/.test(permission));
  const [status, setStatus] = useState<Status | null>(null);
  useEffect(() => {
    if (!canRead) return;
    const load = () => get('/admin/insights/status').then(setStatus, () => undefined);
    load();
    const timer = setInterval(load, 60_000);
    return () => clearInterval(timer);
  }, [canRead]);
  const context = useMemo<AppContext>(() => {
    const currency = status?.currency ?? me.store.currency;
    const timezone = status?.timezone ?? me.store.timezone;
    const fmt = formatter(lang, currency, timezone, numbering);
    return {
      lang,
      t: (key, params) => translate(lang, key, params),
      tn: (key, count, params) => translateCount(lang, key, count, { ...params, count: fmt.number(count) }),
      fmt,
      me,
      canWrite: !me.readOnly,
      can: (permission) => me.permissions.includes(permission),
      entitled: (entitlement) => me.entitlements.includes(entitlement),
    };
  }, [lang, me, status, numbering]);
  useEffect(() => {
    if (location.path === '/')
      navigate(
        canRead ? '/insights/overview' : me.permissions.includes('data.flows.manage') ? '/data-hub/connections' : '/data-hub/flows',
        true,
      );
  }, [location.path, canRead]);
  const { t } = context;
  return (
    <App.Provider value={context}>
      <a class="skip" href="#main">
        {t('app.skip')}
      </a>
      <header class="top" data-menu-open={menuOpen || undefined}>
        <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="side-nav" onClick={() => setMenuOpen(!menuOpen)}>
          {t('nav.menu')}
        </button>
        <div class="store">
          <strong>{me.store.name}</strong>
          <span class="who">
            {me.staff ? `${t('top.signedInAs', { name: me.staff.name })} · ${t(`role.${me.staff.role}` as MessageKey)}` : me.support?.agent}
          </span>
        </div>
        <Freshness status={status} />
        <div class="tools">
          <LanguageSwitch lang={lang} setLang={setLang} />
          {lang === 'ar' ? <DigitsSwitch numbering={arabicDigits} setNumbering={chooseDigits} /> : null}
          {me.staff ? (
            <button type="button" data-write onClick={() => answer(client.POST('/admin/auth/sign-out')).finally(onSignedOut)}>
              {t('top.signOut')}
            </button>
          ) : null}
        </div>
      </header>
      {me.readOnly && me.support ? (
        <div class="support-banner" role="status" data-read-only>
          <strong>{t('support.banner', { agent: me.support.agent, until: context.fmt.dateTime(me.support.expiresAt) })}</strong>{' '}
          <span>{t('support.reason', { reason: me.support.reason })}</span>
        </div>
      ) : null}
      <div class="layout">
        <SideNav path={location.path} open={menuOpen} canRead={canRead} />
        <main id="main" tabIndex={-1}>
          <Page path={location.path} query={location.query} />
        </main>
      </div>
    </App.Provider>
  );
}

function Freshness({ status }: { status: Status | null }) {
  const { t, fmt } = useApp();
  if (!status?.dataAsOf) return <p class="freshness">{t('top.noStatus')}</p>;
  const lag = Math.max(0, Math.round(status.lagSeconds ?? 0));
  return (
    <p class="freshness" data-freshness>
      {t('top.dataAsOf', { time: fmt.dateTime(status.dataAsOf) })} ·{' '}
      {lag < 60 ? t('top.upToDate') : t('top.lag', { lag: fmt.value(lag, 'duration') })}
    </p>
  );
}

/** The range and comparison follow the member from page to page. */
const KEPT = ['last', 'from', 'to', 'compare', 'grain'];

function NavLink({ to, current, children }: { to: string; current: string; children: ComponentChildren }) {
  const { query } = useLocation();
  const kept = new URLSearchParams([...query].filter(([key]) => KEPT.includes(key))).toString();
  const href = kept ? `${to}?${kept}` : to;
  return (
    <a
      href={`/admin/app${href}`}
      aria-current={current === to ? 'page' : undefined}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(href);
        document.getElementById('main')?.focus();
      }}
    >
      {children}
    </a>
  );
}

/**
 * What the member may not read is not offered; what the plan lacks is offered with the plan that has it.
 * On a narrow screen it is folded behind the header's menu button (`open`), so each page's own content comes first.
 */
function SideNav({ path, open, canRead }: { path: string; open: boolean; canRead: boolean }) {
  const { t, can, entitled } = useApp();
  const catalogue = useLoad(canRead ? () => get('/admin/insights/reports') : null);
  const reports = (catalogue.data?.items ?? []).filter((report) => report.name !== 'overview' && can(`insights.${report.area}.view`));
  const dataHub = (can('data.flows.read') || can('data.connections.manage')) && entitled('feature:data_hub');
  return (
    <nav class="side" id="side-nav" data-open={open || undefined} aria-label={t('nav.label')}>
      {can('insights.sales.view') || reports.length > 0 ? (
        <>
          <h2>{t('nav.insights')}</h2>
          <ul>
            {can('insights.sales.view') ? (
              <li>
                <NavLink to="/insights/overview" current={path}>
                  {t('nav.overview')}
                </NavLink>
              </li>
            ) : null}
            {reports.map((report) => (
              <li key={report.name}>
                <NavLink to={`/insights/reports/${report.name}`} current={path}>
                  {t(reportTitle(report.name))}
                  {entitled(`area:${report.area}`) ? null : (
                    <span class="plan-badge"> ({t('nav.needsPlan', { plan: t(`plan.${report.plan}`) })})</span>
                  )}
                </NavLink>
              </li>
            ))}
          </ul>
          <InsightsNav path={path} Link={NavLink} />
        </>
      ) : null}
      {dataHub ? (
        <>
          <h2>{t('nav.dataHub')}</h2>
          <ul>
            {(['connections', 'mappings', 'flows'] as const)
              .filter((area) => area !== 'connections' || can('data.flows.manage'))
              .map((area) => (
                <li key={area}>
                  <NavLink to={`/data-hub/${area}`} current={path}>
                    {t(`nav.${area}`)}
                  </NavLink>
                </li>
              ))}
          </ul>
        </>
      ) : null}
    </nav>
  );
}

function Page({ path, query }: { path: string; query: URLSearchParams }) {
  const { t } = useApp();
  if (path === '/insights/overview') return <Overview query={query} />;
  const report = /^\/insights\/reports\/(\w+)$/.exec(path);
  if (report) return <Report name={report[1]} query={query} key={report[1]} />;
  const insights = InsightsPage({ path, query });
  if (insights) return insights;
  if (path.startsWith('/data-hub/')) return <DataHubPage path={path} />;
  if (path === '/') return null;
  return <p role="alert">{t('report.notFound')}</p>;
}

render(<Root />, document.getElementById('app')!);
