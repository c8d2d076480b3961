/**
 * Completeness checks promtool cannot do, run by scripts/check-observability.sh:
 *
 *   npx ts-node --transpile-only observability/prometheus/validate-rules.ts
 *
 * - every alert has a `severity` label (critical|warning) and `summary`, `description`, `runbook_url`
 *   annotations, and its runbook_url anchor is a `## <AlertName>` section of docs/runbooks.md;
 * - every alert has a firing and a not-firing case in drover-rules.test.yml;
 * - docs/observability.md names every metric of libs/metrics/src/metric-names.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { METRIC } from '../../libs/metrics/src/metric-names';

const ROOT = join(__dirname, '..', '..');
const RUNBOOK_BASE = 'https://github.com/drover-dev/drover/blob/main/docs/runbooks.md#';

interface Rule {
  alert?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface UnitTest {
  name: string;
  alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[];
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

export function ruleProblems(): string[] {
  const problems: string[] = [];
  const rules = (parse(read('observability/prometheus/drover-rules.yml')) as { groups: { rules: Rule[] }[] }).groups
    .flatMap((g) => g.rules)
    .filter((r) => r.alert);
  const tests = (parse(read('observability/prometheus/drover-rules.test.yml')) as { tests: UnitTest[] }).tests;
  const anchors = new Set(
    read('docs/runbooks.md')
      .split('\n')
      .filter((l) => l.startsWith('## '))
      .map((l) => l.slice(3).trim().toLowerCase()),
  );
  if (rules.length === 0) problems.push('no alerts found');
  for (const r of rules) {
    const name = r.alert ?? '';
    if (!['critical', 'warning'].includes(r.labels?.severity ?? ''))
      problems.push(`${name}: severity critical|warning`);
    for (const key of ['summary', 'description', 'runbook_url']) {
      if (!r.annotations?.[key]?.trim()) problems.push(`${name}: annotation ${key} missing`);
    }
    const url = r.annotations?.runbook_url ?? '';
    if (!url.startsWith(RUNBOOK_BASE) || url.slice(RUNBOOK_BASE.length) !== name.toLowerCase()) {
      problems.push(`${name}: runbook_url must be ${RUNBOOK_BASE}${name.toLowerCase()}`);
    }
    if (!anchors.has(name.toLowerCase())) problems.push(`${name}: docs/runbooks.md has no "## ${name}" section`);
    const cases = tests.flatMap((t) => (t.alert_rule_test ?? []).filter((c) => c.alertname === name));
    if (!cases.some((c) => (c.exp_alerts ?? []).length > 0)) problems.push(`${name}: no firing unit test`);
    if (!cases.some((c) => (c.exp_alerts ?? []).length === 0)) problems.push(`${name}: no not-firing unit test`);
  }
  const docs = read('docs/observability.md');
  for (const metric of Object.values(METRIC)) {
    if (!docs.includes(`\`${metric}\``)) problems.push(`docs/observability.md does not list ${metric}`);
  }
  return problems;
}

if (require.main === module) {
  const problems = ruleProblems();
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log('alerts, runbooks, unit tests and metric docs complete');
}
