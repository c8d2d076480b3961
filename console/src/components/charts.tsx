/**
 * A sparkline of `values` (oldest first) as an inline SVG. `label` is what a screen reader
 * hears, since the drawing alone says nothing to it.
 */
export function Sparkline({ values, label, tone = 'accent' }: { values: number[]; label: string; tone?: string }) {
  const w = 120;
  const h = 28;
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(h - 2 - (v / max) * (h - 4)).toFixed(1)}`).join(' ');
  return (
    <svg class={`spark t-${tone}`} viewBox={`0 0 ${w} ${h}`} width={w} height={h} role="img" aria-label={label}>
      <polyline points={points} fill="none" stroke="currentColor" stroke-width="1.5" />
    </svg>
  );
}

/** Bars of run durations (oldest first), coloured by outcome: the routine's history at a glance. */
export function DurationChart({ bars, label }: { bars: { ms: number; ok: boolean; title: string }[]; label: string }) {
  const w = 600;
  const h = 80;
  const max = Math.max(1, ...bars.map((b) => b.ms));
  const bw = bars.length ? w / bars.length : w;
  return (
    <svg class="chart" viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={label}>
      {bars.map((b, i) => {
        const bh = Math.max(2, (b.ms / max) * (h - 2));
        return (
          <rect key={i} x={i * bw + 1} y={h - bh} width={Math.max(1, bw - 2)} height={bh} class={b.ok ? 'ok' : 'bad'}>
            <title>{b.title}</title>
          </rect>
        );
      })}
    </svg>
  );
}
