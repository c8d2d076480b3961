import type { z } from 'zod';
import { fieldsAt, shownKey, unknownFieldMessage } from '@drover/core';
import type { FieldError } from './problem';

/**
 * Zod issues as field errors rooted at `where` (`body`, `query`, `params`). An unknown field is
 * named at its own path with core's "did you mean" hint, as a policy file's would be.
 */
export function fieldErrorsOfZod(where: string, error: z.ZodError, schema?: z.ZodType): FieldError[] {
  return error.issues.flatMap((issue) => {
    const at = [where, ...issue.path.map(String)];
    if (issue.code !== 'unrecognized_keys') return [{ path: at.join('.'), message: issue.message }];
    const known = schema ? fieldsAt(schema, issue.path) : undefined;
    return issue.keys.map((key) => ({
      path: [...at, shownKey(key)].join('.'),
      message: unknownFieldMessage(key, known),
    }));
  });
}

/**
 * Core's validation messages (`routines[nightly].trigger.cron: …`) as field errors: the part
 * before the first `: ` is the path. `strip` drops a prefix that only exists because core checks
 * one routine as a bundle (`routines[nightly].` → `body.`).
 */
export function fieldErrorsOfMessages(messages: string[], root: string, strip?: RegExp): FieldError[] {
  return messages.map((m) => {
    const at = m.indexOf(': ');
    if (at < 0) return { path: root, message: m };
    let path = m.slice(0, at);
    if (strip) path = path.replace(strip, '');
    return { path: path ? `${root}.${path}` : root, message: m.slice(at + 2) };
  });
}
