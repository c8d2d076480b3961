/** The API's instants: ISO 8601 in UTC with milliseconds, e.g. `2026-11-22T19:40:00.000Z`. */
export const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Matches an instant as the API answers it (use inside toEqual/toMatchObject). */
export const anIso = (): unknown => expect.stringMatching(ISO_INSTANT);

/** Epoch ms of an instant the API answered, failing loudly on anything else. */
export function msOf(iso: unknown): number {
  if (typeof iso !== 'string' || !ISO_INSTANT.test(iso)) throw new Error(`not an ISO 8601 UTC instant: ${String(iso)}`);
  return Date.parse(iso);
}
