/**
 * Why a slot or a fire was recorded as `skipped` instead of running:
 * - `catch-up-skip`: missed during downtime and the routine's catchUpPolicy is `skip`;
 * - `superseded`: missed, but policy `last` ran a newer slot instead;
 * - `catch-up-capped`: missed, policy `all`, but older than the newest `maxCatchUp` missed slots;
 * - `deadline-exceeded`: would start later than `slot + startingDeadlineMs`;
 * - `overlap-forbid`: a run of the routine is still queued or running and concurrencyPolicy is `forbid`;
 * - `overlap-buffer-full`: concurrencyPolicy is `buffer-one`, a run is active and another already waits for it;
 * - `condition-false`: the routine's condition check said no (healthy; not a failure);
 * - `excluded`: one of the routine's exclusion calendars holds the slot (recorded `excluded: <calendar>`);
 * - `skipped-by-operator`: an operator asked for this one slot to be skipped (recorded `skipped-by-operator: by <who>`).
 */
export const SKIP_REASONS = [
  'catch-up-skip',
  'superseded',
  'catch-up-capped',
  'deadline-exceeded',
  'overlap-forbid',
  'overlap-buffer-full',
  'condition-false',
  'excluded',
  'skipped-by-operator',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
