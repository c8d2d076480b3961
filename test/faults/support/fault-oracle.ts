import type { AppProcess, OracleHit } from '@drover/testing';

/** Interval routines every second that call the oracle: what the fault tests watch. */
export const ROUTINES = ['tick-a', 'tick-b', 'tick-c'];

/** The policy file of a fault test: one queue, {@link ROUTINES} calling `oracleUrl`. */
/** The fault tests' routines count a slot dispatched more than this late as missed. */
export const MISFIRE_GRACE_MS = 4_000;

export function tickPolicy(oracleUrl: string): unknown {
  return {
    queues: [{ name: 'default', concurrency: 20, maxAttempts: 3, backoff: { type: 'fixed', delayMs: 200 } }],
    routines: ROUTINES.map((name) => ({
      name,
      jobType: 'http.request',
      queue: 'default',
      trigger: { kind: 'interval', everyMs: 1000 },
      // A short grace, so an 8 s outage has missed slots for the catch-up policy to decide.
      misfireGraceMs: MISFIRE_GRACE_MS,
      payload: { url: `${oracleUrl}/hit`, method: 'POST' },
    })),
  };
}

/** Every delivery the oracle saw, grouped by (routine, X-Drover-Scheduled-For). */
export function deliveriesBySlot(hits: OracleHit[]): Map<string, OracleHit[]> {
  const by = new Map<string, OracleHit[]>();
  for (const h of hits) {
    const key = `${h.routine} ${h.scheduledFor}`;
    by.set(key, [...(by.get(key) ?? []), h]);
  }
  return by;
}

/** (routine, slot) pairs delivered more than once, with what each delivery carried. */
export function deliveredTwice(
  hits: OracleHit[],
): { slot: string; deliveries: Pick<OracleHit, 'runId' | 'attempt'>[] }[] {
  return [...deliveriesBySlot(hits)]
    .filter(([, d]) => d.length > 1)
    .map(([slot, d]) => ({ slot, deliveries: d.map((h) => ({ runId: h.runId, attempt: h.attempt })) }));
}

/** Slots (ms) on the 1-second grid in [from, to] that `routine` has no delivery for. */
export function missingSlots(hits: OracleHit[], routine: string, from: number, to: number): string[] {
  const seen = new Set(hits.filter((h) => h.routine === routine).map((h) => h.scheduledFor));
  const out: string[] = [];
  for (let t = Math.ceil(from / 1000) * 1000; t <= to; t += 1000) {
    const iso = new Date(t).toISOString();
    if (!seen.has(iso)) out.push(iso);
  }
  return out;
}

/** True once every routine has a delivery for a slot at or after `at`. */
export const allRoutinesDeliveredSince = (at: number) => (hits: OracleHit[]) =>
  ROUTINES.every((r) => hits.some((h) => h.routine === r && Date.parse(h.scheduledFor) >= at));

/** The status of a process's /readyz, or 0 when it does not answer. */
export async function readyzStatus(p: AppProcess): Promise<number> {
  try {
    return (await fetch(`${p.baseUrl}/readyz`, { signal: AbortSignal.timeout(3_000) })).status;
  } catch {
    return 0;
  }
}

/** Records which processes exited (and how) while a test ran; none of them should. */
export function watchExits(processes: AppProcess[]): () => string[] {
  const exits: string[] = [];
  for (const p of processes) void p.exited.then((code) => exits.push(`${p.name} pid ${p.pid} exited: ${code}`));
  return () => exits;
}

/** Lines a process wrote that are not JSON log records (a raw stack on stderr, say). */
export function unstructuredLines(p: AppProcess): string[] {
  return p
    .output()
    .split('\n')
    .filter((line) => {
      if (line.trim() === '') return false;
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
}
