/**
 * Generates the provisioned Grafana dashboards from code:
 *
 *   npx ts-node --transpile-only observability/dashboards/generate.ts [--out-dir DIR]
 *
 * writes drover-overview.json and drover-queue.json next to this file (or into DIR, which
 * scripts/check-observability.sh uses to prove the committed JSON is what this writes).
 *
 * Query conventions (docs/observability.md explains them):
 * - drover_queue_jobs, drover_queue_workers, drover_queue_global_concurrency and drover_routines
 *   come from the scheduler leader only; `max by (queue, ...)` first collapses them to one series
 *   per queue whichever scheduler leads, so a leader handover never double counts.
 * - Counters reset when a process restarts; panels only ever use rate() or increase() on them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { type DashboardSpec, dashboard } from './grafana';
import { overview } from './overview.dashboard';
import { queue } from './queue.dashboard';

export const DASHBOARDS: Record<string, DashboardSpec> = {
  'drover-overview.json': overview,
  'drover-queue.json': queue,
};

/** The file's text exactly as committed: JSON formatted by the repo's Prettier config. */
export async function render(spec: DashboardSpec): Promise<string> {
  const options = (await resolveConfig(join(__dirname, 'x.json'))) ?? {};
  return format(JSON.stringify(dashboard(spec), null, 2), { ...options, parser: 'json' });
}

async function main(argv: string[]): Promise<void> {
  const at = argv.indexOf('--out-dir');
  const outDir = at >= 0 ? argv[at + 1] : __dirname;
  if (!outDir) throw new Error('--out-dir needs a directory');
  mkdirSync(outDir, { recursive: true });
  for (const [file, spec] of Object.entries(DASHBOARDS)) {
    writeFileSync(join(outDir, file), await render(spec));
    console.log(`wrote ${join(outDir, file)}`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
