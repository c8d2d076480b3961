const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Parse an ISO 8601 instant with an explicit offset (`2026-12-24T18:00:00Z`, `2026-12-24T19:00+01:00`)
 * to epoch ms, or `undefined` if it is not one (missing offset, impossible date such as Feb 30, etc.).
 */
export function parseIsoInstant(text: string): number | undefined {
  const m = ISO_INSTANT.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '0'] = m.map((x) => x ?? '');
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const back = new Date(wall);
  if (
    back.getUTCMonth() !== Number(mo) - 1 ||
    back.getUTCDate() !== Number(d) ||
    back.getUTCHours() !== Number(h) ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return undefined;
  }
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
