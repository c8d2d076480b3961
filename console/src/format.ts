import { formatInstant } from '@drover/core/human-time';

/** "3 s ago", "in 2 min": short relative times for tables. */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const text =
    abs < 1_000
      ? 'now'
      : abs < 60_000
        ? `${Math.round(abs / 1000)} s`
        : abs < 3_600_000
          ? `${Math.round(abs / 60_000)} min`
          : abs < 86_400_000
            ? `${Math.round(abs / 3_600_000)} h`
            : `${Math.round(abs / 86_400_000)} d`;
  if (text === 'now') return text;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

/** An exact instant, one way everywhere (console and CLI): `2026-11-24 20:59:20 UTC`. */
export function when(iso: string | null | undefined): string {
  return formatInstant(iso);
}

/** A duration in ms as `850 ms`, `3.2 s`, `4 min 10 s`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** How long a run took (start to finish), when it did both. */
export function runDuration(run: { startedAt?: string; finishedAt?: string }): number | undefined {
  if (!run.startedAt || !run.finishedAt) return undefined;
  return Date.parse(run.finishedAt) - Date.parse(run.startedAt);
}

/** A progress value's percent (a number, or an object's `percent` field), clamped to 0–100. */
export function progressPercent(value: unknown): number | undefined {
  const p = typeof value === 'number' ? value : (value as { percent?: unknown } | null)?.percent;
  return typeof p === 'number' && Number.isFinite(p) ? Math.min(100, Math.max(0, p)) : undefined;
}

/** The revision of a routine slot's run id (`r-<routine>-<slotMs>.<rev>`), 0 for any other id. */
export function redecided(id: string): number {
  const m = /^r-.+-\d+\.(\d+)$/.exec(id);
  return m ? Number(m[1]) : 0;
}

export const json = (v: unknown): string => JSON.stringify(v, null, 2) ?? 'undefined';
