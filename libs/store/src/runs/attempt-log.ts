import type { AttemptFailureKind } from '@drover/core';

/** One failed attempt as kept in the run's attempt log (epoch ms). */
export interface AttemptRecord {
  attempt: number;
  kind: AttemptFailureKind;
  message: string;
  stack?: string;
  /** Unknown for an attempt lost to an expired lease (BullMQ overwrites processedOn on restart). */
  startedAt?: number;
  failedAt: number;
  worker?: string;
}

const MARK = '{"drover":1,';

/**
 * The attempt log rides in BullMQ's own `stacktrace` list, which BullMQ appends to in the same
 * script that moves a failed job on (no extra round trip, atomic with the transition). Drover
 * makes each entry a JSON record instead of a bare stack.
 */
export function encodeAttempt(record: AttemptRecord): string {
  return MARK + JSON.stringify(record).slice(1);
}

/** Reads the attempt log; entries not written by Drover (a plain stack) become `error` records. */
export function decodeAttempts(stacktrace: readonly unknown[] | null | undefined): AttemptRecord[] {
  if (!Array.isArray(stacktrace)) return [];
  const out: AttemptRecord[] = [];
  stacktrace.forEach((entry, i) => {
    if (typeof entry !== 'string') return;
    if (entry.startsWith(MARK)) {
      try {
        const { drover: _v, ...record } = JSON.parse(entry) as AttemptRecord & { drover: number };
        out.push(record);
        return;
      } catch {
        // fall through: keep the raw text
      }
    }
    out.push({ attempt: i + 1, kind: 'error', message: entry.split('\n')[0] ?? '', stack: entry, failedAt: 0 });
  });
  return out;
}
