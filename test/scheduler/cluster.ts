import type { OracleHit } from '@drover/testing';

export { TestCluster } from '../support/test-cluster';

/** Every slot of a 1-second grid in [from, to], as ISO strings (what X-Drover-Scheduled-For carries). */
export function secondSlots(from: number, to: number): string[] {
  const out: string[] = [];
  for (let t = Math.ceil(from / 1000) * 1000; t <= to; t += 1000) out.push(new Date(t).toISOString());
  return out;
}

/**
 * What the receiver saw for each of `slots` (ISO) of `routine`: deliveries counted per slot from
 * the requests themselves (X-Drover-Scheduled-For), never from run ids — a run id is derived from
 * its slot, so counting ids per slot could not see a slot delivered twice.
 */
export function deliveries(
  hits: OracleHit[],
  routine: string,
  slots: string[],
): { routine: string; missing: string[]; twice: string[] } {
  const count = new Map<string, number>();
  for (const h of hits) if (h.routine === routine) count.set(h.scheduledFor, (count.get(h.scheduledFor) ?? 0) + 1);
  return {
    routine,
    missing: slots.filter((s) => !count.has(s)),
    twice: slots.filter((s) => (count.get(s) ?? 0) > 1).map((s) => `${s} ×${count.get(s)}`),
  };
}

/** Every delivery of `routine` counted by slot: any slot seen more than once, whatever the window. */
export function deliveredTwice(hits: OracleHit[], routine: string): string[] {
  const count = new Map<string, number>();
  for (const h of hits) if (h.routine === routine) count.set(h.scheduledFor, (count.get(h.scheduledFor) ?? 0) + 1);
  return [...count].filter(([, n]) => n > 1).map(([s, n]) => `${s} ×${n}`);
}
