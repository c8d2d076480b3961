import { bytesText, jsonBytes, MAX_PAYLOAD_BYTES } from './limits';

/** Keys refused anywhere in a payload: they can pollute prototypes in consumers that merge objects. */
export const FORBIDDEN_PAYLOAD_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

const MAX_DEPTH = 64;

/** A problem found in a payload: `path` is relative to the payload root (e.g. `['a', 'b', 2]`; `[]` = root). */
export interface PayloadIssue {
  path: (string | number)[];
  message: string;
}

function walk(value: unknown, path: (string | number)[], depth: number, out: PayloadIssue[]): void {
  if (depth > MAX_DEPTH) {
    out.push({ path, message: `nested deeper than ${MAX_DEPTH} levels` });
    return;
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push({ path, message: `${value} is not a JSON number; use a finite number` });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, [...path, i], depth + 1, out));
    return;
  }
  const proto: unknown = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (typeof value === 'object' && (proto === Object.prototype || proto === null)) {
    for (const key of Object.keys(value)) {
      const at = [...path, key];
      if (FORBIDDEN_PAYLOAD_KEYS.includes(key)) {
        out.push({ path: at, message: `key "${key}" is not allowed (reserved: ${FORBIDDEN_PAYLOAD_KEYS.join(', ')})` });
      } else {
        walk((value as Record<string, unknown>)[key], at, depth + 1, out);
      }
    }
    return;
  }
  out.push({
    path,
    message: `a ${typeof value} is not JSON; use objects, arrays, strings, finite numbers, booleans or null`,
  });
}

/**
 * Check that `value` is plain JSON (no functions, undefined, NaN/Infinity, class instances, cycles deeper than
 * 64 levels), carries none of {@link FORBIDDEN_PAYLOAD_KEYS} at any depth, and serialises to at most
 * `maxBytes` UTF-8 bytes. Returns every problem found (empty = valid). Pure.
 */
export function checkPayload(value: unknown, maxBytes: number = MAX_PAYLOAD_BYTES): PayloadIssue[] {
  const out: PayloadIssue[] = [];
  walk(value, [], 0, out);
  if (out.length > 0) return out;
  const bytes = jsonBytes(value);
  if (bytes > maxBytes) {
    out.push({ path: [], message: `is ${bytes} bytes as JSON; the limit is ${bytesText(maxBytes)}` });
  }
  return out;
}
