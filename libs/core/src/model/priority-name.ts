// Imports nothing (served to the CLI and console by `../words`).

/** Named priorities; numbers may be used directly (higher runs first). See `priorityValue`. */
export const PRIORITY_NAMES = ['low', 'medium', 'high'] as const;
export type PriorityName = (typeof PRIORITY_NAMES)[number];
