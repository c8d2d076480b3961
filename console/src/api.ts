import { createDroverApiClient, DroverApiError, ok, type components } from '@drover/api-client';

export { ok, DroverApiError };
export type Schemas = components['schemas'];
export type Run = Schemas['Run'];
export type Routine = Schemas['Routine'];
export type Queue = Schemas['Queue'];
export type Cluster = Schemas['Cluster'];
export type Session = Schemas['Session'];
export type RunStatus = Run['status'];

/**
 * The console's client of the management API: same origin, so the session cookie rides along
 * (the console never sees the token after login), and every request carries the CSRF header
 * the api requires of cookie-authenticated writes.
 */
export const api = createDroverApiClient({ baseUrl: location.origin });
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
