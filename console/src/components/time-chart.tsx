import { relative, when } from '../format';

export interface ChartSeries {
  name: string;
  /** A CSS class: its colour (`c-accent`, `c-bad`, `c-warn`, `c-muted`). */
  tone: string;
  /** One value per point; null: nothing measured there. */
  values: (number | null)[];
}

const W = 400;
const H = 150;
const LEFT = 46;
const BOTTOM = 20;
const TOP = 8;

/** A round upper bound for the y axis (1, 2, 5 × 10ⁿ), at least 1. */
export function niceMax(v: number): number {
  if (!(v > 1)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

/**
 * A chart over time with its axes: the y axis labelled 0, half and the top value (formatted by
 * `format`), the x axis by how long ago its start, middle and end were. `bars` draws the series as
 * overlaid bars (a subset after its whole, e.g. parked over failed), `lines` as lines with gaps
 * where nothing was measured. Every point's values are in its tooltip; `label` and the summary
 * below it are what a screen reader gets.
 */
export function TimeChart(props: {
  title: string;
  label: string;
  at: string[];
  series: ChartSeries[];
  kind: 'bars' | 'lines';
  format: (v: number) => string;
  now: number;
}) {
  const { at, series, kind, format } = props;
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null))));
  const plotW = W - LEFT;
  const plotH = H - TOP - BOTTOM;
  const step = at.length ? plotW / at.length : plotW;
  const y = (v: number) => TOP + plotH - (v / max) * plotH;
  const ticks = [0, max / 2, max];
  const xTicks = at.length ? [0, Math.floor(at.length / 2), at.length - 1] : [];
  return (
    <figure class="tchart">
      <figcaption>
        <strong>{props.title}</strong>
        <span class="legend">
          {series.map((s) => (
            <span key={s.name}>
              <span class={`swatch ${s.tone}`} aria-hidden="true" /> {s.name}
            </span>
          ))}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.label}>
        {ticks.map((t) => (
          <g key={t} class="axis">
            <line x1={LEFT} x2={W} y1={y(t)} y2={y(t)} />
            <text x={LEFT - 6} y={y(t) + 4} text-anchor="end">
              {format(t)}
            </text>
          </g>
        ))}
        {xTicks.map((i, k) => (
          <text
            key={k}
            class="axis"
            x={LEFT + i * step + (k === 2 ? step : 0)}
            y={H - 5}
            text-anchor={k === 0 ? 'start' : k === 1 ? 'middle' : 'end'}
          >
            {k === 2 ? 'now' : relative(at[i], props.now)}
          </text>
        ))}
        {kind === 'bars'
          ? series.map((s, si) =>
              s.values.map((v, i) =>
                v ? (
                  <rect
                    key={`${si}-${i}`}
                    class={s.tone}
                    x={LEFT + i * step + (si ? step * 0.2 : 0.5)}
                    width={Math.max(1, si ? step * 0.6 : step - 1)}
                    y={y(v)}
                    height={Math.max(1, TOP + plotH - y(v))}
                  />
                ) : null,
              ),
            )
          : series.map((s) => (
              <g key={s.name} class={s.tone}>
                {s.values.map((v, i) =>
                  v === null ? null : <circle key={i} cx={LEFT + (i + 0.5) * step} cy={y(v)} r={2} />,
                )}
                <path
                  class="line"
                  d={s.values
                    .map((v, i) =>
                      v === null
                        ? ''
                        : `${s.values[i - 1] == null ? 'M' : 'L'}${(LEFT + (i + 0.5) * step).toFixed(1)},${y(v).toFixed(1)}`,
                    )
                    .join('')}
                />
              </g>
            ))}
        {at.map((a, i) => (
          <rect key={a} class="hit" x={LEFT + i * step} width={step} y={TOP} height={plotH}>
            <title>
              {`${when(a)}: ${series.map((s) => `${s.name} ${s.values[i] === null ? '—' : format(s.values[i]!)}`).join(', ')}`}
            </title>
          </rect>
        ))}
      </svg>
    </figure>
  );
}
