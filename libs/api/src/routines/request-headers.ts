import type { Request } from 'express';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '@drover/core';
import { ProblemError } from '../http/problem';

/** The strong ETag of a routine version. */
export const etagOf = (version: number): string => `"${version}"`;

/**
 * The version an `If-Match` header requires: a number for `"<version>"` (weak `W/` tags match
 * too: versions are exact either way), `*` for "any existing", undefined without the header.
 */
export function ifMatchOf(req: Request): number | '*' | undefined {
  const raw = req.headers['if-match'];
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === '*') return '*';
  const m = /^(?:W\/)?"(\d{1,15})"$/.exec(value);
  if (!m) {
    const message = 'must be the ETag of the routine (e.g. "3", quotes included) or *';
    throw new ProblemError(400, `invalid request: headers.if-match ${message}`, [
      { path: 'headers.if-match', message },
    ]);
  }
  return Number(m[1]);
}

const KEY_PATTERN = new RegExp(`^[\\x21-\\x7e][\\x20-\\x7e]{0,${MAX_IDEMPOTENCY_KEY_LENGTH - 1}}$`);

/**
 * The `Idempotency-Key` header of `POST /jobs` and `POST /routines/{name}/trigger` (1-1024
 * printable ASCII characters, the client's limit too), or undefined without it.
 */
export function idempotencyKeyOf(req: Request): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0]! : raw;
  if (!KEY_PATTERN.test(key)) {
    const message = `must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`;
    throw new ProblemError(400, `invalid request: headers.idempotency-key ${message}`, [
      { path: 'headers.idempotency-key', message },
    ]);
  }
  return key;
}
