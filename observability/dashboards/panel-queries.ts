/**
 * Every provisioned dashboard's panel queries as Grafana sends them to Prometheus: read from the
 * committed JSON (what Grafana loads), template variables substituted. One place for what
 * validate.ts checks statically, panels.int-spec.ts runs against a synthetic cluster and
 * test/observability/live-cluster.e2e-spec.ts runs against a real one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PrometheusHandle } from '../../libs/testing/src/prometheus';
import { waitFor } from '../../libs/testing/src/wait-for';

export const DASHBOARD_FILES = ['drover-overview.json', 'drover-queue.json'] as const;

/** Grafana's own variables the dashboards may use; `substitute` replaces each of them. */
export const GRAFANA_BUILTINS = ['__rate_interval', '__range', '__interval'] as const;

export interface GrafanaTarget {
  datasource?: { uid?: string };
  expr?: string;
  refId?: string;
}

export interface GrafanaPanel {
  id?: number;
  type?: string;
  title?: string;
  datasource?: { uid?: string };
  gridPos?: { x: number; y: number; w: number; h: number };
  targets?: GrafanaTarget[];
  panels?: GrafanaPanel[];
}

export interface GrafanaVariable {
  name?: string;
  type?: string;
  query?: unknown;
  definition?: string;
  datasource?: { uid?: string };
}

export interface GrafanaDashboard {
  id?: unknown;
  uid?: unknown;
  title?: unknown;
  schemaVersion?: unknown;
  __inputs?: unknown;
  templating?: { list?: GrafanaVariable[] };
  panels?: GrafanaPanel[];
}

/** Panels inside rows included, in document order. */
export function flattenPanels(panels: GrafanaPanel[]): GrafanaPanel[] {
  return panels.flatMap((p) => [p, ...flattenPanels(p.panels ?? [])]);
}

/** What Grafana would put in place of the variables; `queue` is the dashboard's `queue` variable. */
export interface TemplateValues {
  queue: string;
  /** `$__rate_interval`; default 15s (four scrapes at the compose data source's 15 s interval). */
  rateInterval?: string;
  /** `$__range`, the selected time range; default 1m. */
  range?: string;
  /** `$__interval`; default 5s. */
  interval?: string;
}

export function substitute(expr: string, values: TemplateValues): string {
  return expr
    .replace(/\$__rate_interval\b/g, values.rateInterval ?? '15s')
    .replace(/\$__range\b/g, values.range ?? '1m')
    .replace(/\$__interval\b/g, values.interval ?? '5s')
    .replace(/\$\{queue\}|\$queue\b/g, values.queue);
}

export interface PanelQuery {
  /** `<file> / <panel title> / <refId>`, for failure messages. */
  where: string;
  file: string;
  /** The expression with the variables substituted. */
  expr: string;
}

export function readDashboard(file: string, dir = __dirname): GrafanaDashboard {
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as GrafanaDashboard;
}

/** Every target of every panel of `files`, substituted with `values`. */
export function panelQueries(values: TemplateValues, files: readonly string[] = DASHBOARD_FILES): PanelQuery[] {
  return files.flatMap((file) =>
    flattenPanels(readDashboard(file).panels ?? []).flatMap((p) =>
      (p.targets ?? []).map((t) => ({
        where: `${file} / ${p.title} / ${t.refId}`,
        file,
        expr: substitute(t.expr ?? '', values),
      })),
    ),
  );
}

/** The dashboards' `label_values(metric, label)` query variables. */
export function labelVariables(
  files: readonly string[] = DASHBOARD_FILES,
): { name: string; metric: string; label: string }[] {
  return files.flatMap((file) =>
    (readDashboard(file).templating?.list ?? []).flatMap((v) => {
      const m = v.type === 'query' ? /^label_values\((\w+),\s*(\w+)\)$/.exec(v.definition ?? '') : null;
      return m ? [{ name: v.name ?? '', metric: m[1]!, label: m[2]! }] : [];
    }),
  );
}

const hasFiniteValue = (values: { value: [number, string] }[]) =>
  values.some((s) => Number.isFinite(Number(s.value[1])));

/**
 * Runs every query until each has returned a finite value at least once, or the deadline passes;
 * resolves with the queries that never did (empty: every panel has data). A query Prometheus
 * rejects counts as never answered, with its error in `where`.
 */
export async function queriesWithoutData(
  prom: PrometheusHandle,
  queries: PanelQuery[],
  opts: { timeoutMs: number; intervalMs?: number },
): Promise<PanelQuery[]> {
  const pending = new Map(queries.map((q) => [q.where, q]));
  const errors = new Map<string, string>();
  await waitFor(
    'every panel query to return a finite value',
    async () => {
      for (const [where, q] of pending) {
        const result = await prom.query(q.expr).catch((err: Error) => {
          errors.set(where, err.message);
          return [];
        });
        if (hasFiniteValue(result)) pending.delete(where);
      }
      return pending.size === 0;
    },
    { timeoutMs: opts.timeoutMs, intervalMs: opts.intervalMs ?? 500 },
  ).catch(() => undefined);
  return [...pending.values()].map((q) =>
    errors.has(q.where) ? { ...q, where: `${q.where} (${errors.get(q.where)})` } : q,
  );
}
