/**
 * A tiny builder for Grafana dashboard JSON (schemaVersion 39): just the panel kinds Drover's
 * dashboards use. Every panel and target points at the `datasource` template variable, so the
 * dashboards import into any Grafana with any Prometheus data source name.
 */

export const DATASOURCE = { type: 'prometheus', uid: '${datasource}' } as const;

export interface Query {
  expr: string;
  legend?: string;
}

export type Unit = 'short' | 'ops' | 's' | 'percentunit' | 'bytes' | 'percent';

interface PanelBase {
  title: string;
  description: string;
  queries: Query[];
  unit?: Unit;
  /** Width in grid columns (24 per row) and height in grid rows. */
  w: number;
  h?: number;
}

export interface TimeSeriesSpec extends PanelBase {
  kind: 'timeseries';
  stack?: boolean;
  /** Series whose display name matches this regex are drawn as dashed lines (limits, ceilings). */
  dashed?: string;
  /** A horizontal red threshold line, e.g. the alert threshold. */
  threshold?: number;
  links?: { title: string; url: string }[];
}

export interface StatSpec extends PanelBase {
  kind: 'stat';
  /** Threshold steps after the base colour: [value, colour]. */
  steps?: [number, string][];
  baseColor?: string;
}

export type PanelSpec = TimeSeriesSpec | StatSpec;

export interface RowSpec {
  title: string;
  panels: PanelSpec[];
}

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  rows: RowSpec[];
  /** Template variables after `datasource`, as Grafana JSON. */
  variables?: Record<string, unknown>[];
}

type Json = Record<string, unknown>;

function targets(queries: Query[]): Json[] {
  return queries.map((q, i) => ({
    datasource: DATASOURCE,
    editorMode: 'code',
    expr: q.expr,
    legendFormat: q.legend ?? '__auto',
    range: true,
    refId: String.fromCharCode(65 + i),
  }));
}

function thresholds(steps: [number, string][], base: string): Json {
  return {
    mode: 'absolute',
    steps: [{ color: base, value: null }, ...steps.map(([value, color]) => ({ color, value }))],
  };
}

function timeseries(p: TimeSeriesSpec): Json {
  const overrides = p.dashed
    ? [
        {
          matcher: { id: 'byRegexp', options: p.dashed },
          properties: [
            { id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } },
            { id: 'custom.fillOpacity', value: 0 },
            { id: 'custom.stacking', value: { group: 'A', mode: 'none' } },
          ],
        },
      ]
    : [];
  return {
    type: 'timeseries',
    fieldConfig: {
      defaults: {
        unit: p.unit ?? 'short',
        min: 0,
        links: p.links ?? [],
        custom: {
          drawStyle: 'line',
          lineWidth: 1,
          fillOpacity: p.stack ? 30 : 10,
          showPoints: 'never',
          spanNulls: false,
          stacking: { group: 'A', mode: p.stack ? 'normal' : 'none' },
          thresholdsStyle: { mode: p.threshold === undefined ? 'off' : 'dashed' },
        },
        thresholds: thresholds(p.threshold === undefined ? [] : [[p.threshold, 'red']], 'transparent'),
      },
      overrides,
    },
    options: {
      legend: { displayMode: 'table', placement: 'bottom', showLegend: true, calcs: ['lastNotNull', 'max'] },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
  };
}

function stat(p: StatSpec): Json {
  return {
    type: 'stat',
    fieldConfig: {
      defaults: {
        unit: p.unit ?? 'short',
        color: { mode: 'thresholds' },
        thresholds: thresholds(p.steps ?? [], p.baseColor ?? 'green'),
      },
      overrides: [],
    },
    options: {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      colorMode: 'value',
      graphMode: 'area',
      justifyMode: 'auto',
      orientation: 'auto',
      textMode: 'auto',
    },
  };
}

/** Lays rows out top to bottom, panels left to right, wrapping at 24 columns. */
function layout(rows: RowSpec[]): Json[] {
  const panels: Json[] = [];
  let id = 1;
  let y = 0;
  for (const row of rows) {
    panels.push({ type: 'row', id: id++, title: row.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y } });
    y += 1;
    let x = 0;
    let lineHeight = 0;
    for (const p of row.panels) {
      const h = p.h ?? (p.kind === 'stat' ? 4 : 8);
      if (x + p.w > 24) {
        y += lineHeight;
        x = 0;
        lineHeight = 0;
      }
      const body = p.kind === 'stat' ? stat(p) : timeseries(p);
      panels.push({
        id: id++,
        title: p.title,
        description: p.description,
        datasource: DATASOURCE,
        gridPos: { h, w: p.w, x, y },
        ...body,
        targets: targets(p.queries),
      });
      x += p.w;
      lineHeight = Math.max(lineHeight, h);
    }
    y += lineHeight;
  }
  return panels;
}

export const DATASOURCE_VARIABLE = {
  name: 'datasource',
  label: 'Data source',
  type: 'datasource',
  query: 'prometheus',
  regex: '',
  current: {},
  options: [],
  hide: 0,
  refresh: 1,
  includeAll: false,
  multi: false,
  skipUrlSync: false,
};

/** A single-value query variable over one label of one metric. */
export function labelVariable(name: string, label: string, metric: string): Json {
  const query = `label_values(${metric}, ${name})`;
  return {
    name,
    label,
    type: 'query',
    datasource: DATASOURCE,
    definition: query,
    query: { qryType: 1, query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    regex: '',
    current: {},
    options: [],
    hide: 0,
    refresh: 2,
    sort: 1,
    includeAll: false,
    multi: false,
    skipUrlSync: false,
  };
}

export function dashboard(spec: DashboardSpec): Json {
  return {
    id: null,
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: ['drover'],
    editable: true,
    graphTooltip: 1,
    fiscalYearStartMonth: 0,
    liveNow: false,
    refresh: '30s',
    schemaVersion: 39,
    version: 1,
    time: { from: 'now-6h', to: 'now' },
    timepicker: {},
    timezone: 'browser',
    weekStart: '',
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    links: [
      {
        title: 'Drover dashboards',
        type: 'dashboards',
        tags: ['drover'],
        asDropdown: true,
        includeVars: false,
        keepTime: true,
        icon: 'external link',
        targetBlank: false,
        tooltip: '',
        url: '',
      },
    ],
    templating: { list: [DATASOURCE_VARIABLE, ...(spec.variables ?? [])] },
    panels: layout(spec.rows),
  };
}
