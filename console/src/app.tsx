import { useEffect, useState } from 'preact/hooks';
import { answered, api, errorText, ok, type Session } from './api';
import { Link } from './components/link';
import { feed, useConnection } from './live';
import { Login } from './pages/login';
import { Routes, NAV, NAV_ROLE } from './routes';
import { useRoute } from './router';
import { SessionContext } from './session';

const CONNECTION_TEXT = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
} as const;

function ConnectionIndicator() {
  const state = useConnection();
  return (
    <span class={`conn conn-${state}`} role="status" aria-live="polite" data-testid="connection">
      <span class="dot" aria-hidden="true" />
      {CONNECTION_TEXT[state]}
    </span>
  );
}

/** How long a logout waits for calls already sent before it ends the session anyway. */
const LOGOUT_WAIT_MS = 3_000;

export function App() {
  const [session, setSession] = useState<Session | null>();
  const [expired, setExpired] = useState(false);
  const [fatal, setFatal] = useState<string>();
  const [leaving, setLeaving] = useState(false);
  const { path } = useRoute();

  const check = () =>
    ok(api.GET('/api/v1/session')).then(
      (s) => setSession(s.authenticated ? s : null),
      (err: unknown) => setFatal(errorText(err)),
    );

  useEffect(() => void check(), []);
  useEffect(() => {
    if (!session) return;
    feed.start();
    // A feed the browser gave up on is most often a session that ended: ask who we are again.
    const off = feed.onLost(() => {
      setExpired(true);
      void check();
    });
    return () => {
      off();
      feed.stop();
    };
  }, [session]);

  if (fatal)
    return (
      <main class="login">
        <p class="error" role="alert">
          The api did not answer: {fatal}
        </p>
      </main>
    );
  if (session === undefined)
    return (
      <main class="login">
        <p class="muted">Loading…</p>
      </main>
    );
  if (session === null)
    return (
      <Login
        expired={expired}
        onLogin={(s) => {
          setExpired(false);
          setSession(s);
        }}
      />
    );

  const logout = async () => {
    // Nothing may ask the api once the session is gone (each answer would be a 401): the feed
    // closes, the page goes (its reloads and timers with it), and the calls already sent get their
    // answers before the session ends.
    feed.stop();
    setLeaving(true);
    await new Promise((resolve) => setTimeout(resolve, 0)); // the page is gone once this render is done
    await answered(LOGOUT_WAIT_MS);
    await api.DELETE('/api/v1/session').catch(() => undefined);
    setLeaving(false);
    setSession(null);
  };
  const section = '/' + (path.split('/')[1] ?? '');

  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      {session.developmentMode && (
        <div class="banner" role="note">
          Development mode: the api has no tokens file and serves loopback clients as admin without login.
        </div>
      )}
      <header class="top">
        <Link to="/" class="brand">
          Drover
        </Link>
        <nav aria-label="Sections">
          <ul>
            {NAV.filter(([to]) => session.role === 'admin' || !NAV_ROLE[to]).map(([to, label]) => (
              <li key={to}>
                <Link to={to} current={to === '/' ? path === '/' : section === to}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <ConnectionIndicator />
          <span class="muted" data-testid="whoami">
            {session.name} · {session.role}
          </span>
          {session.auth === 'session' && (
            <button type="button" class="link" onClick={() => void logout()}>
              Log out
            </button>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {leaving ? <p class="muted">Logging out…</p> : <Routes path={path} />}
      </main>
    </SessionContext.Provider>
  );
}
