// Imports nothing (served to the CLI and console by `../words`).

/** Why an attempt ended without success, as kept in the run's attempt log. */
export const ATTEMPT_FAILURE_KINDS = ['error', 'timeout', 'lease-expired', 'permanent', 'invalid-payload'] as const;
export type AttemptFailureKind = (typeof ATTEMPT_FAILURE_KINDS)[number];
