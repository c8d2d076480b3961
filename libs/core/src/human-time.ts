/**
 * How Drover shows and reads time for people, shared by the console and the CLI. Import-free (the
 * `@drover/core/human-time` entry loads nothing else), pure: every "now" is passed in.
 *
 * One format for an exact instant everywhere: `2026-11-24 20:59:20 UTC`. UTC, not the viewer's
 * zone, so a time read off the console, the CLI, a log line or a colleague's screen is the same
 * text; relative times ("3 min ago") stand next to it where they help.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An instant (epoch ms or ISO 8601) as `2026-11-24 20:59:20 UTC`; `fallback` when absent or unreadable. */
export function formatInstant(at: string | number | null | undefined, fallback = '—'): string {
  if (at === null || at === undefined || at === '') return fallback;
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return fallback;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `90s`, `10m`, `1h30m`, `2d` or plain milliseconds → ms; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
}

/** What `parseInstant` accepts, for error messages and form hints. */
export const INSTANT_HINT =
  'an ISO 8601 instant (2026-05-01T09:00:00Z), 2h / -30m from now, or today|tomorrow HH:MM (UTC)';

/**
 * An instant typed by a person → ISO 8601 (undefined when it is none): an ISO string with a date
 * as given; a duration from now (`2h`, `+90m`) or ago (`-30m`); or `today 18:00` / `tomorrow 09:00`
 * in UTC, the zone every time is shown in.
 */
export function parseInstant(text: string, now: number): string | undefined {
  const t = text.trim();
  const rel = /^([+-])?(.+)$/.exec(t);
  if (rel && /^[\d.]+(ms|s|m|h|d)/.test(rel[2]!) && !t.includes('T')) {
    const ms = parseDuration(rel[2]!);
    if (ms === undefined) return undefined;
    return new Date(rel[1] === '-' ? now - ms : now + ms).toISOString();
  }
  const day = /^(today|tomorrow)(?:\s+(\d{1,2}):(\d{2}))?$/i.exec(t);
  if (day) {
    const [hours, minutes] = [Number(day[2] ?? 0), Number(day[3] ?? 0)];
    if (hours > 23 || minutes > 59) return undefined;
    const d = new Date(now);
    const days = day[1]!.toLowerCase() === 'tomorrow' ? 1 : 0;
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days, hours, minutes)).toISOString();
  }
  if (Number.isNaN(Date.parse(t)) || !/^\d{4}-\d{2}-\d{2}/.test(t)) return undefined;
  return t;
}
