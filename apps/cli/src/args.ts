import { UsageError } from './cli-error';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `10m`, `1h30m`, `2d` or plain milliseconds → ms. */
export function parseDuration(text: string, option: string): number {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) {
    throw new UsageError(`${option}: "${text}" is not a duration (e.g. 30s, 10m, 1h30m, 2d)`);
  }
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
}

/**
 * An instant for the API (ISO 8601): an ISO string as given, or a duration meaning that long
 * from now (`--until 2h`) or ago (`--from -2h`).
 */
export function parseInstant(text: string, option: string, now: number): string {
  const t = text.trim();
  const rel = /^([+-])?(.+)$/.exec(t);
  if (rel && /^[\d.]+(ms|s|m|h|d)/.test(rel[2]!) && !t.includes('T')) {
    const ms = parseDuration(rel[2]!, option);
    return new Date(rel[1] === '-' ? now - ms : now + ms).toISOString();
  }
  if (Number.isNaN(Date.parse(t)) || !/^\d{4}-\d{2}-\d{2}/.test(t)) {
    throw new UsageError(
      `${option}: "${text}" is not an instant (ISO 8601 like 2026-05-01T09:00:00Z, or 2h / -30m from now)`,
    );
  }
  return t;
}

/** A positive integer option (`--limit`, `--count`). */
export function parseCount(text: string, option: string, max = 100_000): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(`${option}: "${text}" must be a whole number from 1 to ${max}`);
  }
  return Number(text);
}

/** `--payload '{"a":1}'` → the JSON value, or a usage error naming the option. */
export function parseJsonArg(text: string, option: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${option}: not valid JSON (${(err as Error).message})`);
  }
}
