import { z } from 'zod';
import { MAX_NAME_LENGTH } from './limits';

/** Pattern every queue and routine name must match: lowercase, digits, `.`, `_`, `-`; 1–128 characters. */
export const NAME_PATTERN = new RegExp(`^[a-z0-9][a-z0-9._-]{0,${MAX_NAME_LENGTH - 1}}$`);

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
