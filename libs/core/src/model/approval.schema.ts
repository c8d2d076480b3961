import { z } from 'zod';

/** The longest approval window: a year, the longest BullMQ holds a run back (see APPROVAL_HOLD_MS). */
export const MAX_APPROVAL_EXPIRY_MS = 365 * 24 * 3_600_000;

/**
 * An approval gate on a queue's or a routine's runs: each run waits, `awaiting-approval`, until an
 * operator approves or rejects it; with `expiresAfterMs`, a run nobody decided on within that long
 * of its creation is rejected by the clock (`expired`). A routine's own gate replaces its queue's
 * (`{required: false}` lets a routine's runs through a gated queue).
 */
export const approvalPolicySchema = z.strictObject({
  required: z.boolean().default(true),
  expiresAfterMs: z.number().int().positive().max(MAX_APPROVAL_EXPIRY_MS).optional(),
});

export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;
