import type { Request } from 'express';
import { MAX_IDEMPOTENCY_KEY_LENGTH, RoutineVersionConflictError } from '@drover/core';
import { ProblemError } from '../http/problem';

/** The strong ETag of a routine version. */
export const etagOf = (version: number): string => `"${version}"`;

/**
 * What an `If-Match` header asks for (RFC 9110 §13.1.1): `*` (any existing version), or the
 * versions its entity tags name. Tags this api never made (`"stale"`) name no version, so a
 * header of only those matches nothing: 412, not 400.
 */
export type IfMatch = '*' | { versions: number[]; header: string };

const ENTITY_TAG = /[ \t]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[ \t]*(?:,|$)/y;
const LIST_SEPARATOR = /[ \t]*,/y;

/**
 * The `If-Match` header, undefined without one. A list of entity tags (`"3", W/"4"`) is
 * accepted; weak tags match too (versions are exact either way). Only a header that is no
 * entity-tag list at all (`v2`, a missing quote) is a 400.
 */
export function ifMatchOf(req: Request): IfMatch | undefined {
  const raw = req.headers['if-match'];
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === '*') return '*';
  const versions: number[] = [];
  let tags = 0;
  for (let at = 0; at < value.length;) {
    LIST_SEPARATOR.lastIndex = at;
    if (LIST_SEPARATOR.test(value)) {
      at = LIST_SEPARATOR.lastIndex; // an empty list element (RFC 9110 §5.6.1)
      continue;
    }
    ENTITY_TAG.lastIndex = at;
    const m = ENTITY_TAG.exec(value);
    if (!m) return invalidIfMatch();
    tags++;
    if (/^\d{1,15}$/.test(m[2]!)) versions.push(Number(m[2]));
    at = ENTITY_TAG.lastIndex;
  }
  if (tags === 0) return invalidIfMatch();
  return { versions, header: value.length > 100 ? `${value.slice(0, 100)}…` : value };
}

function invalidIfMatch(): never {
  const message = 'must be the ETag of the routine (e.g. "3", quotes included), a list of ETags, or *';
  throw new ProblemError(400, `invalid request: headers.if-match ${message}`, [{ path: 'headers.if-match', message }]);
}

/**
 * The version a conditional write must find, given the `current` one the request read (0: no
 * such routine). Without If-Match it is the version read, so the write cannot apply to a
 * definition the caller's rights were not checked against. 412 when the header matches nothing.
 */
export function versionToWrite(name: string, ifMatch: IfMatch | undefined, current: number): number {
  if (ifMatch === undefined) return current;
  if (ifMatch === '*') {
    if (current === 0) throw new RoutineVersionConflictError(name, 1, 0);
    return current;
  }
  if (ifMatch.versions.length === 0) {
    const now = current === 0 ? 'it does not exist' : `its ETag is ${etagOf(current)}`;
    throw new ProblemError(412, `If-Match ${ifMatch.header} names no version of routine "${name}"; ${now}`);
  }
  if (current !== 0 && ifMatch.versions.includes(current)) return current;
  throw new RoutineVersionConflictError(name, ifMatch.versions[0]!, current);
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
