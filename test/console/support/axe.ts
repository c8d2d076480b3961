import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core on the page as it is and answers the serious and critical violations. Evaluated
 * through the devtools protocol, so the console's CSP (no inline scripts) stays on.
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  const injected = await page.evaluate('typeof window.axe');
  if (injected !== 'object') await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate("axe.run({ resultTypes: ['violations'] }).then((r) => r.violations)")) as {
    id: string;
    impact: string | null;
    help: string;
    nodes: { target: string[] }[];
  }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}
