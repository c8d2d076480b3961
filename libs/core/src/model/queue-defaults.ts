// Imports nothing (served to the CLI and console by `../words`).

/** The queue a job goes to when neither the caller nor its contract names one. */
export const DEFAULT_QUEUE = 'default';

/**
 * Retention of finished runs when a queue sets none: at most 1000, none older than 7 days; each
 * run keeps its newest 1000 log lines.
 */
export const DEFAULT_RETENTION = { count: 1000, ageMs: 7 * 24 * 3_600_000, logLines: 1000 } as const;
