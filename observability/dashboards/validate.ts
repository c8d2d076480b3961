/**
 * Structural checks of provisioned Grafana dashboards, run by scripts/check-observability.sh:
 *
 *   npx ts-node --transpile-only observability/dashboards/validate.ts FILE.json...
 *
 * A dashboard must have a fixed uid equal to its file name, `id: null`, a `datasource` template
 * variable instead of `${DS_…}` import inputs, every panel, target and query variable on
 * `${datasource}`, only known template variables in expressions, and panels inside the 24-column grid
 * without overlaps. Exits 1 listing every problem.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type GrafanaDashboard, GRAFANA_BUILTINS, flattenPanels } from './panel-queries';

const DS = '${datasource}';

/** Every problem found in one dashboard file's text; empty when it is fine. */
export function validateDashboard(file: string, text: string): string[] {
  const problems: string[] = [];
  const fail = (msg: string) => problems.push(`${file}: ${msg}`);
  let dash: GrafanaDashboard;
  try {
    dash = JSON.parse(text) as GrafanaDashboard;
  } catch (err) {
    return [`${file}: not JSON: ${(err as Error).message}`];
  }
  const stem = basename(file, '.json');
  if (dash.uid !== stem) fail(`uid must be fixed and equal the file name "${stem}", got ${JSON.stringify(dash.uid)}`);
  if (dash.id !== null) fail(`id must be null, got ${JSON.stringify(dash.id)}`);
  if (typeof dash.title !== 'string' || !dash.title) fail('title missing');
  if (typeof dash.schemaVersion !== 'number') fail('schemaVersion missing');
  if (dash.__inputs !== undefined || text.includes('${DS_')) fail('uses ${DS_…} import inputs');

  const variables = dash.templating?.list ?? [];
  const dsVar = variables.find((v) => v.name === 'datasource');
  if (!dsVar || dsVar.type !== 'datasource' || dsVar.query !== 'prometheus') {
    fail('needs a template variable "datasource" of type datasource, query prometheus');
  }
  for (const v of variables) {
    if (v.type === 'query' && v.datasource?.uid !== DS) fail(`variable ${v.name} must use ${DS}`);
  }
  const known = new Set<string>([...GRAFANA_BUILTINS, ...variables.map((v) => v.name ?? '')]);

  const panels = flattenPanels(dash.panels ?? []);
  if (panels.length === 0) fail('has no panels');
  const ids = new Set<number>();
  const cells = new Map<string, string>();
  for (const p of panels) {
    const name = `panel ${p.id} "${p.title}"`;
    if (typeof p.id !== 'number' || ids.has(p.id)) fail(`${name}: id missing or duplicate`);
    else ids.add(p.id);
    const g = p.gridPos;
    if (!g || g.x < 0 || g.w < 1 || g.x + g.w > 24 || g.h < 1) fail(`${name}: gridPos outside the 24-column grid`);
    else {
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          const other = cells.get(`${x},${y}`);
          if (other) fail(`${name}: overlaps ${other}`);
          cells.set(`${x},${y}`, name);
          if (other) break;
        }
      }
    }
    if (p.type === 'row') continue;
    if (p.datasource?.uid !== DS) fail(`${name}: panel datasource must be ${DS}`);
    const targets = p.targets ?? [];
    if (targets.length === 0) fail(`${name}: has no targets`);
    const refIds = new Set<string>();
    for (const t of targets) {
      if (t.datasource?.uid !== DS) fail(`${name} ${t.refId}: target datasource must be ${DS}`);
      if (!t.refId || refIds.has(t.refId)) fail(`${name}: refId missing or duplicate`);
      refIds.add(t.refId ?? '');
      if (!t.expr?.trim()) fail(`${name} ${t.refId}: empty expr`);
      for (const m of (t.expr ?? '').matchAll(/\$\{?(\w+)/g)) {
        if (!known.has(m[1] ?? '')) fail(`${name} ${t.refId}: unknown variable $${m[1]}`);
      }
    }
  }
  return [...new Set(problems)];
}

if (require.main === module) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error('usage: validate.ts FILE.json...');
    process.exit(2);
  }
  const problems = files.flatMap((f) => validateDashboard(f, readFileSync(f, 'utf8')));
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log(`dashboards ok: ${files.join(', ')}`);
}
