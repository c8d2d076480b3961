// Imports nothing (served to the CLI and console by `../words`).

/**
 * What a child run's failure (parked: its attempts used up or a permanent error) does to its
 * parent: `fail` parks the parent without running it; `ignore` lets the parent run once its other
 * children finished, and the parent reads the failure among its children's outcomes.
 */
export const FLOW_CHILD_FAILURES = ['fail', 'ignore'] as const;
export type FlowChildFailure = (typeof FLOW_CHILD_FAILURES)[number];
