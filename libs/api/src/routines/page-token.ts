import { NAME_PATTERN } from '@drover/core';

/**
 * Cursor of a name-ordered listing: the base64url of the last name on the page. Opaque to
 * callers; stable across inserts and deletes (the next page starts after that name, whatever
 * changed meanwhile).
 */
export function encodePageToken(lastName: string): string {
  return Buffer.from(lastName, 'utf8').toString('base64url');
}

/** The name a token continues after, or undefined when it is not a token this API made. */
export function decodePageToken(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(token)) return undefined;
  const name = Buffer.from(token, 'base64url').toString('utf8');
  return NAME_PATTERN.test(name) && encodePageToken(name) === token ? name : undefined;
}
