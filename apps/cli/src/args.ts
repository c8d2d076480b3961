import {
  INSTANT_HINT,
  parseDuration as parseHumanDuration,
  parseInstant as parseHumanInstant,
} from '@drover/core/human-time';
import { UsageError } from './cli-error';

/** `90s`, `10m`, `1h30m`, `2d` or plain milliseconds → ms. */
export function parseDuration(text: string, option: string): number {
  const ms = parseHumanDuration(text);
  if (ms === undefined) throw new UsageError(`${option}: "${text}" is not a duration (e.g. 30s, 10m, 1h30m, 2d)`);
  return ms;
}

/** An instant for the API (ISO 8601), read as the console's forms read it (`2h`, `tomorrow 09:00`, ISO). */
export function parseInstant(text: string, option: string, now: number): string {
  const iso = parseHumanInstant(text, now);
  if (iso === undefined) throw new UsageError(`${option}: "${text}" is not ${INSTANT_HINT}`);
  return iso;
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
