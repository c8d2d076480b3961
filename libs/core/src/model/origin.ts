// Imports nothing (served to the CLI and console by `../words`).

/**
 * Where a routine or queue was defined: `file` (the policy file; `apply` manages it) or `api`
 * (made through the API; `apply` leaves it alone).
 */
export const ORIGINS = ['file', 'api'] as const;
export type Origin = (typeof ORIGINS)[number];
