// The words of an approval gate. Imports nothing (served to the CLI and console by `../words`).

/**
 * Where a gated run's approval stands: `waiting` for an operator, `approved` (it runs), `rejected`
 * by an operator, or `expired` (nobody decided before its expiry: rejected by the clock).
 */
export const APPROVAL_STATES = ['waiting', 'approved', 'rejected', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** The `reason` of a run canceled by an operator's reject when the operator gave none. */
export const REJECTED_REASON = 'rejected';
/** The `reason` of a run whose approval expired. */
export const APPROVAL_EXPIRED_REASON = 'approval-expired';
