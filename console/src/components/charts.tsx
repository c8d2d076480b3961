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
