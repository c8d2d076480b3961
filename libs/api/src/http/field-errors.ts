import type { z } from 'zod';
import type { FieldError } from './problem';

/** Zod issues as field errors rooted at `where` (`body`, `query`, `params`). */
export function fieldErrorsOfZod(where: string, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
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
