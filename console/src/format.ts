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

/** A local date and time, to the second. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
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

export const json = (v: unknown): string => JSON.stringify(v, null, 2) ?? 'undefined';
