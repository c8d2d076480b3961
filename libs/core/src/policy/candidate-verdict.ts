// Imports nothing (served to the CLI and console by `../words`).

/**
 * Why a selector routine's tick would or would not enqueue a candidate: `chosen`; a run for the key
 * is still queued or running — an operator's override (`pending-override`) or an earlier tick's
 * (`pending-run`); ranked after the first `maxPerTick` (`beyond-max-per-tick`); `disabled` by its
 * provider; or the key was listed before (`repeated`, only its first enabled entry counts).
 */
export const CANDIDATE_VERDICTS = [
  'chosen',
  'pending-override',
  'pending-run',
  'beyond-max-per-tick',
  'disabled',
  'repeated',
] as const;
export type CandidateVerdict = (typeof CANDIDATE_VERDICTS)[number];
