import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SLOT_SKIP_REASONS } from '@drover/core';

const SCHEDULER = join(__dirname, '..');
const LAUNCHER = join(__dirname, '..', '..', '..', 'core', 'src', 'policy', 'launcher.policy.ts');

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* sources(path);
    else if (e.name.endsWith('.ts') && !/\.(spec|int-spec)\.ts$/.test(e.name)) yield path;
  }
}

/** Every literal reason a slot can be recorded skipped with: `skip('x')`, `reason: 'x'` (not the metric's `none`). */
function spelledReasons(text: string): string[] {
  const found = [...text.matchAll(/\bskip\('([a-z-]+)'|\breason: '([a-z-]+)'/g)].map((m) => (m[1] ?? m[2])!);
  return found.filter((r) => r !== 'none');
}

describe('skip reasons the scheduler records', () => {
  it("are words of core's SLOT_SKIP_REASONS, so the ledger and drover_slots_total never show them as other", () => {
    const spelled = new Set([...sources(SCHEDULER), LAUNCHER].flatMap((f) => spelledReasons(readFileSync(f, 'utf8'))));
    expect(spelled.size).toBeGreaterThan(5);
    expect([...spelled].filter((r) => !(SLOT_SKIP_REASONS as readonly string[]).includes(r))).toEqual([]);
  });

  it('finds a reason spelled in a skip', () => {
    expect(spelledReasons("return skip('buffer-full');\nreason: 'none'")).toEqual(['buffer-full']);
  });
});
