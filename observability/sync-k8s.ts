/**
 * Copies the observability artifacts into the kustomize tree, which cannot reference files outside
 * its root:
 *
 *   npx ts-node --transpile-only observability/sync-k8s.ts [--out-dir DIR]
 *
 * writes (into k8s/base/observability, or DIR) prometheusrule.yaml, a PrometheusRule whose spec is
 * observability/prometheus/drover-rules.yml verbatim, and dashboards/*.json, copies of the generated
 * Grafana dashboards. scripts/check-observability.sh writes into a temp dir and fails on any diff.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..');
const RULES = join(ROOT, 'observability/prometheus/drover-rules.yml');
const DASHBOARDS = join(ROOT, 'observability/dashboards');
const DEFAULT_OUT = join(ROOT, 'k8s/base/observability');

const HEADER = `# GENERATED from observability/prometheus/drover-rules.yml by observability/sync-k8s.ts: edit that file, then run
#   npx ts-node --transpile-only observability/sync-k8s.ts
# Needs the Prometheus Operator CRDs (monitoring.coreos.com/v1). An operator selecting rules by label may need an
# extra label from an overlay (kube-prometheus-stack: release: <its release name>).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: drover
  labels:
    app.kubernetes.io/name: drover
    app.kubernetes.io/component: alerting
    app.kubernetes.io/part-of: drover
spec:
`;

/** The PrometheusRule text: the rules file minus its leading comment block, indented under `spec:`. */
export async function prometheusRule(rulesText: string): Promise<string> {
  const lines = rulesText.split('\n');
  const body = lines.slice(lines.findIndex((l) => l.trim() !== '' && !l.startsWith('#')));
  const spec = body.map((l) => (l === '' ? l : `  ${l}`)).join('\n');
  const text = HEADER + spec;
  const parsed = parse(text) as { spec: unknown };
  const rules = parse(rulesText) as unknown;
  if (JSON.stringify(parsed.spec) !== JSON.stringify(rules)) throw new Error('PrometheusRule spec differs from rules');
  const options = (await resolveConfig(join(DEFAULT_OUT, 'x.yaml'))) ?? {};
  return format(text, { ...options, parser: 'yaml' });
}

async function main(argv: string[]): Promise<void> {
  const at = argv.indexOf('--out-dir');
  const outDir = at >= 0 ? argv[at + 1] : DEFAULT_OUT;
  if (!outDir) throw new Error('--out-dir needs a directory');
  mkdirSync(join(outDir, 'dashboards'), { recursive: true });
  writeFileSync(join(outDir, 'prometheusrule.yaml'), await prometheusRule(readFileSync(RULES, 'utf8')));
  for (const file of readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json'))) {
    copyFileSync(join(DASHBOARDS, file), join(outDir, 'dashboards', file));
  }
  console.log(`wrote ${outDir}`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
