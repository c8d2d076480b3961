/** A JSON value as a merge patch sees it. */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Applies an RFC 7396 JSON merge patch to `target`: object members merge recursively, `null`
 * removes a member, anything else (arrays included) replaces. Returns a new value; neither input
 * is changed. A patch that is not an object replaces the target entirely (as the RFC says).
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch as Json);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}
