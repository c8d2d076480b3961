import type { Routine } from '@drover/core';

/** What decides whether a routine's runs are tracked as open. */
export type OpenRunFacts = Pick<Routine, 'concurrencyPolicy' | 'selector'>;

/**
 * Whether a routine's new runs are listed among its open runs (the index `openRunsOfRoutine` reads).
 * The rule follows the readers: the overlap policy reads them for `forbid` and `replace` (a manual
 * run too must hold off or be replaced by the next fire), and a selector routine reads them for the
 * keys still pending and its overrides. An `allow` routine without a selector has no reader, so its
 * runs are not listed (a write saved per run, and the list stays short). Every run of a routine is
 * made under this rule, whatever its source; the scheduler reads open runs under the same rule.
 *
 * `undefined` (a replay, which has no definition at hand) counts as tracked: an entry nobody reads
 * costs a sorted-set member, a missing one would let `forbid` overlap.
 */
export function tracksOpenRuns(def: OpenRunFacts | undefined): boolean {
  return def === undefined || def.concurrencyPolicy !== 'allow' || !!def.selector;
}
