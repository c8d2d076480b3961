/**
 * A real Prometheus for tests, configured like the compose deployment: the job names of
 * prometheus.yml (dashboards select processes by job name) and its rule file, scraping the given
 * targets every second. Shared by panels.int-spec.ts (a synthetic cluster) and
 * test/observability/live-cluster.e2e-spec.ts (a real one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { PrometheusHandle, PromRuleGroup } from '../../libs/testing/src/prometheus';
import { waitFor } from '../../libs/testing/src/wait-for';

export const RULES_FILE = join(__dirname, 'drover-rules.yml');
const COMPOSE_CONFIG = join(__dirname, 'prometheus.yml');

/**
 * A prometheus.yml for `targets` (job name → `host:port` list): each job as the compose config
 * declares it with only its targets replaced, 1 s scrape and rule evaluation, the rule file loaded.
 */
export function testPrometheusConfig(targets: Record<string, string[]>): Record<string, unknown> {
  const compose = parse(readFileSync(COMPOSE_CONFIG, 'utf8')) as {
    scrape_configs: { job_name: string; dns_sd_configs?: unknown }[];
  };
  const unknown = Object.keys(targets).filter((job) => !compose.scrape_configs.some((j) => j.job_name === job));
  if (unknown.length) throw new Error(`jobs not in ${COMPOSE_CONFIG}: ${unknown.join(', ')}`);
  return {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [RULES_FILE],
    scrape_configs: compose.scrape_configs
      .filter((job) => targets[job.job_name]?.length)
      // Compose finds the worker replicas through Docker's DNS; here every job gets a fixed list.
      .map(({ dns_sd_configs: _dns, ...job }) => ({ ...job, static_configs: [{ targets: targets[job.job_name] }] })),
  };
}

/** The rule groups once every rule has been evaluated at least once. */
export function evaluatedRuleGroups(prom: PrometheusHandle, timeoutMs = 20_000): Promise<PromRuleGroup[]> {
  return waitFor(
    'every rule to be evaluated once',
    async () => {
      const groups = await prom.ruleGroups();
      return groups.length > 0 && groups.every((g) => g.rules.every((r) => r.health !== 'unknown'))
        ? groups
        : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

/**
 * What is wrong with the loaded rules: a group or rule of the rule file that Prometheus did not
 * load, or a rule whose last evaluation failed. Empty when every rule evaluates with health ok.
 */
export function ruleProblems(groups: PromRuleGroup[]): string[] {
  const file = parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { name: string; rules: unknown[] }[] };
  const problems: string[] = [];
  for (const want of file.groups) {
    const got = groups.find((g) => g.name === want.name);
    if (!got) problems.push(`group ${want.name}: not loaded`);
    else if (got.rules.length !== want.rules.length) {
      problems.push(`group ${want.name}: ${got.rules.length} of ${want.rules.length} rules loaded`);
    }
  }
  for (const g of groups) {
    for (const r of g.rules) {
      if (r.health !== 'ok' || r.lastError) problems.push(`${g.name} / ${r.name}: ${r.health} ${r.lastError ?? ''}`);
    }
  }
  return problems;
}
