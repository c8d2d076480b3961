import { createDroverApiClient, DroverApiError, ok, type components } from '@drover/api-client';

export { ok, DroverApiError };
export type Schemas = components['schemas'];
export type Run = Schemas['Run'];
export type Routine = Schemas['Routine'];
export type Queue = Schemas['Queue'];
export type Cluster = Schemas['Cluster'];
export type Session = Schemas['Session'];
export type RunStatus = Run['status'];

/** Calls sent and not yet answered (their answer's head not yet in). */
let unanswered = 0;
let onAnswered: (() => void)[] = [];

function counted(request: Request): Promise<Response> {
  unanswered++;
  return fetch(request).finally(() => {
    unanswered--;
    if (unanswered === 0) for (const wake of onAnswered.splice(0)) wake();
  });
}

/**
 * Resolves once every call sent so far has its answer, or after `maxMs`: a logout waits for it, so
 * a call the api would still answer with the session is not answered after the session ends (a
 * 401 the browser would log).
 */
export function answered(maxMs: number): Promise<void> {
  if (unanswered === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, maxMs);
    function done() {
      clearTimeout(timer);
      onAnswered = onAnswered.filter((w) => w !== done);
      resolve();
    }
    onAnswered.push(done);
  });
}

/**
 * The console's client of the management API: same origin, so the session cookie rides along
 * (the console never sees the token after login), and every request carries the CSRF header
 * the api requires of cookie-authenticated writes.
 */
export const api = createDroverApiClient({ baseUrl: location.origin, fetch: counted });
api.use({
  onRequest({ request }) {
    request.headers.set('X-Drover-CSRF', '1');
    return request;
  },
});

/** A readable line for an error from the client (or anything thrown). */
export function errorText(err: unknown): string {
  if (err instanceof DroverApiError) return `${err.status}: ${err.problem.detail || err.problem.title}`;
  return err instanceof Error ? err.message : String(err);
}
