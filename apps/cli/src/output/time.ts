const UNITS: [number, string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1_000, 's'],
];

/** A duration for people: `850ms`, `12s`, `3m20s`, `2h5m`, `4d3h`. */
export function humanDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)}ms`;
  for (let i = 0; i < UNITS.length; i++) {
    const [size, unit] = UNITS[i]!;
    if (abs < size) continue;
    const whole = Math.floor(abs / size);
    const next = UNITS[i + 1];
    const rest = next ? Math.floor((abs - whole * size) / next[0]) : 0;
    return next && rest > 0 && whole < 10 ? `${whole}${unit}${rest}${next[1]}` : `${whole}${unit}`;
  }
  return `${Math.round(abs)}ms`;
}

/** `iso` relative to `now` for people: `5s ago`, `in 3m`, `now`; `-` when absent. */
export function relativeTime(iso: string | null | undefined, now: number): string {
  if (!iso) return '-';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const delta = at - now;
  if (Math.abs(delta) < 1000) return 'now';
  return delta < 0 ? `${humanDuration(-delta)} ago` : `in ${humanDuration(delta)}`;
}
