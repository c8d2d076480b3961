import { z } from 'zod';

/**
 * The profile file's schema: what explains a broken file, field by field. Loaded only then (zod
 * costs a start ~60 ms); a well-formed file is read by `profile-shape.ts`, which accepts exactly
 * what this schema accepts (its spec checks the two against each other).
 */
export const profileSchema = z
  .object({
    url: z.string().min(1),
    token: z.string().min(1).optional(),
    tokenFile: z.string().min(1).optional(),
  })
  .strict()
  .refine((p) => !(p.token && p.tokenFile), { message: 'set token or tokenFile, not both' });

export const fileSchema = z
  .object({
    current: z.string().optional(),
    profiles: z.record(z.string(), profileSchema).default({}),
  })
  .strict();
