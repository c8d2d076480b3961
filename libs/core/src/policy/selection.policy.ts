import { z } from 'zod';
import type { CandidateVerdict } from './candidate-verdict';
import { compareWork, weightedStaleness, type WorkItem } from './priority.policy';

/**
 * One piece of work a selector routine's candidate provider says may be owed (jeeves-meta style):
 * `band` 1 goes before band 2 and so on; within a band the stalest goes first, weighted by depth
 * and emphasis. `stalenessSec` null means "never done" (stalest of all).
 */
export const candidateSchema = z.strictObject({
  key: z.string().min(1).max(512),
  band: z.number().int().min(1).max(100).default(1),
  stalenessSec: z.number().nonnegative().nullable(),
  depth: z.number().nonnegative().optional(),
  emphasis: z.number().nonnegative().optional(),
  /** Never chosen automatically (it can still be triggered by key). */
  disabled: z.boolean().optional(),
});
export type Candidate = z.infer<typeof candidateSchema>;
export type CandidateInput = z.input<typeof candidateSchema>;

/** What a provider answered: validated candidates, or why the answer is unusable (a launch failure). */
export function parseCandidates(raw: unknown): { ok: true; candidates: Candidate[] } | { ok: false; error: string } {
  const res = z.array(candidateSchema).max(100_000).safeParse(raw);
  if (!res.success) {
    const issue = res.error.issues[0]!;
    return { ok: false, error: `candidates[${issue.path.join('.')}]: ${issue.message}` };
  }
  return { ok: true, candidates: res.data };
}

/** A candidate as core's work order sees it: band as priority (band 1 highest), staleness as age. */
function asWork(c: Candidate, now: number): WorkItem {
  return {
    id: c.key,
    manual: false,
    priority: -c.band,
    readyAt: c.stalenessSec === null ? -Infinity : now - c.stalenessSec * 1000,
    ...(c.depth !== undefined && { depth: c.depth }),
    ...(c.emphasis !== undefined && { emphasis: c.emphasis }),
  };
}

/**
 * The candidates to enqueue this tick: enabled ones whose key is not pending already, ranked by band,
 * then weighted staleness `staleness × (depth + 1) ^ (depthWeight × emphasis)` (core's `compareWork`),
 * then key; the first `maxPerTick`. A key listed twice counts once (its first entry). Pure.
 */
export function selectCandidates(
  candidates: readonly Candidate[],
  opts: { now: number; maxPerTick: number; depthWeight: number; pendingKeys: ReadonlySet<string> },
): Candidate[] {
  const seen = new Set<string>();
  const eligible = candidates.filter((c) => {
    if (c.disabled || opts.pendingKeys.has(c.key) || seen.has(c.key)) return false;
    seen.add(c.key);
    return true;
  });
  const byKey = new Map(eligible.map((c) => [c.key, c]));
  return eligible
    .map((c) => asWork(c, opts.now))
    .sort(compareWork(opts.now, opts.depthWeight))
    .slice(0, Math.max(0, opts.maxPerTick))
    .map((w) => byKey.get(w.id)!);
}

/** One candidate in a tick's ranking, and what the tick would do with it. */
export interface RankedCandidate {
  /** Its place in the ranking, from 1. */
  rank: number;
  candidate: Candidate;
  /** `stalenessSec × (depth + 1) ^ (depthWeight × emphasis)`; null: never done (stalest of all). */
  weightedStalenessSec: number | null;
  verdict: CandidateVerdict;
}

/**
 * Every candidate as a tick ranks it, each with its verdict: the dry run of {@link selectCandidates},
 * which chooses exactly the `chosen` ones in this order. Ranked by band, weighted staleness, then key
 * (a repeated key's later entries go last, in the order given); `overrideKeys` (a subset of
 * `pendingKeys`) tells an operator's pending override from an earlier tick's run. Pure.
 */
export function rankCandidates(
  candidates: readonly Candidate[],
  opts: {
    now: number;
    maxPerTick: number;
    depthWeight: number;
    pendingKeys: ReadonlySet<string>;
    overrideKeys?: ReadonlySet<string>;
  },
): RankedCandidate[] {
  // Only an enabled entry takes its key: a later enabled entry of a disabled one's key still counts.
  const seen = new Set<string>();
  const first: Candidate[] = [];
  const repeated: Candidate[] = [];
  for (const c of candidates) {
    if (!c.disabled && seen.has(c.key)) repeated.push(c);
    else {
      if (!c.disabled) seen.add(c.key);
      first.push(c);
    }
  }
  const order = compareWork(opts.now, opts.depthWeight);
  const works = first.map((candidate, at) => ({ candidate, at, work: asWork(candidate, opts.now) }));
  // A disabled entry may share its key with another entry: those keep the order they were given in.
  works.sort((a, b) => order(a.work, b.work) || a.at - b.at);
  let chosen = 0;
  const verdictOf = (c: Candidate): CandidateVerdict => {
    if (c.disabled) return 'disabled';
    if (opts.pendingKeys.has(c.key)) return opts.overrideKeys?.has(c.key) ? 'pending-override' : 'pending-run';
    if (chosen >= opts.maxPerTick) return 'beyond-max-per-tick';
    chosen++;
    return 'chosen';
  };
  const weighted = (c: Candidate): number | null =>
    c.stalenessSec === null ? null : weightedStaleness(asWork(c, opts.now), opts.now, opts.depthWeight) / 1000;
  const ranked = [
    ...works.map(({ candidate }) => ({ candidate, verdict: verdictOf(candidate) })),
    ...repeated.map((candidate) => ({ candidate, verdict: 'repeated' as const })),
  ];
  return ranked.map((r, i) => ({ rank: i + 1, ...r, weightedStalenessSec: weighted(r.candidate) }));
}

/** Idle backoff of a selector routine: how many ticks it lets pass between looks while nothing is owed. */
export interface IdleState {
  /** 1 (every tick), 2 or 4. */
  multiplier: number;
  /** Ticks counted since the multiplier last changed. */
  tick: number;
  /** When it started backing off (epoch ms); a run succeeding after this resets it. */
  since?: number;
}

export const IDLE_MULTIPLIER_MAX = 4;

export const initialIdle = (): IdleState => ({ multiplier: 1, tick: 0 });

/**
 * Whether this tick looks for work at all: while backing off, only every `multiplier`-th tick does
 * (the others are recorded skipped, `idle-backoff`). Pure.
 */
export function idleTick(state: IdleState): { look: boolean; next: IdleState } {
  const tick = state.tick + 1;
  return { look: state.multiplier <= 1 || tick % state.multiplier === 0, next: { ...state, tick } };
}

/**
 * After a tick that looked: nothing owed doubles the multiplier (up to ×4); work found leaves it as it
 * is (only a success resets it, see {@link resetIdle}). Pure.
 */
export function afterLook(state: IdleState, found: boolean, now: number): IdleState {
  if (found) return state;
  const multiplier = Math.min(IDLE_MULTIPLIER_MAX, Math.max(1, state.multiplier) * 2);
  return { multiplier, tick: 0, since: state.since ?? now };
}

/** Back to looking every tick (a run of the routine succeeded). */
export function resetIdle(): IdleState {
  return initialIdle();
}
