import { z } from 'zod';

/** Pattern every queue and routine name must match: lowercase, digits, `.`, `_`, `-`; 1–128 characters. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/;

/** A queue or routine name (`[a-z0-9][a-z0-9._-]{0,127}`). */
export const nameSchema = z.string().check((ctx) => {
  if (!NAME_PATTERN.test(ctx.value)) {
    ctx.issues.push({
      code: 'custom',
      input: ctx.value,
      message: `${JSON.stringify(ctx.value)} is not a valid name; use 1-128 of a-z 0-9 . _ - starting with a letter or digit, e.g. "nightly-backup"`,
    });
  }
});
