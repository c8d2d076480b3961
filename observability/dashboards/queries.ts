/** PromQL building blocks and panel shorthands shared by the dashboard definitions. */
import { type PanelSpec, type Query } from './grafana';

export const RI = '$__rate_interval';
export const FINISHED = 'succeeded|failed|parked';
export const FAILED = 'failed|parked';
/** Ready to run but not taken: the backlog. */
export const READY = 'waiting|prioritized';

/** p50/p95/p99 of a histogram, aggregated over everything but `le`. */
export function quantiles(metric: string, selector = ''): Query[] {
  return [0.5, 0.95, 0.99].map((q) => ({
    expr: `histogram_quantile(${q}, sum by (le) (rate(${metric}_bucket${selector}[${RI}])))`,
    legend: `p${Math.round(q * 100)}`,
  }));
}

export function failureRatio(by: string, selector: string): string {
  const sel = (statuses: string) => `{${selector}status=~"${statuses}"}`;
  return (
    `sum by (${by}) (rate(drover_runs_total${sel(FAILED)}[${RI}]))\n/\n` +
    `sum by (${by}) (rate(drover_runs_total${sel(FINISHED)}[${RI}]))`
  );
}

/**
 * Share of API answers whose code matches `codes` (`5..`): 0, not "No data", while there were
 * requests but none such (a counter series only exists from its first increment).
 */
export function apiErrorRatio(codes: string): string {
  return (
    `(sum(rate(drover_api_requests_total{code=~"${codes}"}[${RI}])) or vector(0))\n/\n` +
    `sum(rate(drover_api_requests_total[${RI}]))`
  );
}

export const ts = (p: Omit<Extract<PanelSpec, { kind: 'timeseries' }>, 'kind'>): PanelSpec => ({
  kind: 'timeseries',
  ...p,
});
export const stat = (p: Omit<Extract<PanelSpec, { kind: 'stat' }>, 'kind'>): PanelSpec => ({ kind: 'stat', ...p });
