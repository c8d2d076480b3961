import { useState } from 'preact/hooks';
import { api, errorText, ok, type Session } from '../api';

/**
 * Trades an API token for a session cookie. The token goes to the api once and is forgotten:
 * the cookie is httpOnly, and nothing is written to localStorage.
 */
export function Login({ onLogin, expired }: { onLogin: (s: Session) => void; expired?: boolean }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await ok(api.POST('/api/v1/session', { body: { token } }));
      setToken('');
      onLogin(session);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Drover console</h1>
        {expired && <p class="muted">Your session ended. Log in again.</p>}
        <label for="token">API token</label>
        <input
          id="token"
          type="password"
          autoComplete="current-password"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          required
        />
        <button type="submit" disabled={busy || !token}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <p class="muted small">
          A token from the api&apos;s DROVER_API_TOKENS_FILE. The console keeps a 12-hour session cookie, not the token.
        </p>
      </form>
    </main>
  );
}
