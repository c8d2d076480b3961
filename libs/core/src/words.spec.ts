import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import * as words from './words';

const ROOT = join(__dirname, '..', '..', '..');
const LISTS: Record<string, readonly string[]> = {
  RUN_STATUSES: words.RUN_STATUSES,
  FINAL_RUN_STATUSES: words.FINAL_RUN_STATUSES,
  SETTLED_RUN_STATUSES: words.SETTLED_RUN_STATUSES,
  ACTIVE_RUN_STATUSES: words.ACTIVE_RUN_STATUSES,
  RUN_SOURCES: words.RUN_SOURCES,
  ROUTINE_STATUSES: words.ROUTINE_STATUSES,
  ROUTINE_COUNT_STATUSES: words.ROUTINE_COUNT_STATUSES,
  ATTEMPT_FAILURE_KINDS: words.ATTEMPT_FAILURE_KINDS,
  ORIGINS: words.ORIGINS,
  PRIORITY_NAMES: words.PRIORITY_NAMES,
  CANDIDATE_VERDICTS: words.CANDIDATE_VERDICTS,
  SLOT_FATES: words.SLOT_FATES,
  SLOT_SKIP_REASONS: words.SLOT_SKIP_REASONS,
  BATCH_OUTCOMES: words.BATCH_OUTCOMES,
  BATCH_STATUSES: words.BATCH_STATUSES,
  BATCH_CALLBACKS: words.BATCH_CALLBACKS,
};
// Where a face could restate a word: every shipped source outside core. Tests may spell words out
// to pin behaviour; the generated api client repeats them as types by construction.
const SCANNED = ['apps', 'libs', 'console/src'];
const SKIPPED = [
  /^libs\/core\//,
  /^libs\/api-client\/src\/schema\.ts$/,
  /\.(spec|int-spec|e2e-spec)\.ts$/,
  /(^|\/)(test|testing)\//,
  /(^|\/)(node_modules|dist)\//,
];
const LITERAL = String.raw`(?:'[^'\n]*'|"[^"\n]*")`;
/** Two or more string literals in a row, as in an array (`['a', 'b']`) or a union (`'a' | 'b'`). */
const LITERAL_RUN = new RegExp(String.raw`${LITERAL}(?:\s*[,|]\s*${LITERAL})+`, 'g');

function* sources(dir: string): Generator<{ rel: string; text: string }> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    const rel = relative(ROOT, path).split(sep).join('/');
    if (SKIPPED.some((re) => re.test(e.isDirectory() ? `${rel}/` : rel))) continue;
    if (e.isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(e.name)) yield { rel, text: readFileSync(path, 'utf8') };
  }
}

/** `file: LIST_NAME` for every literal list in `text` holding exactly the words of one of core's lists. */
function restatedLists(rel: string, text: string): string[] {
  const found: string[] = [];
  for (const [run] of text.matchAll(LITERAL_RUN)) {
    const spelled = new Set(run.match(new RegExp(LITERAL, 'g'))!.map((s) => s.slice(1, -1)));
    for (const [name, list] of Object.entries(LISTS)) {
      if (spelled.size === list.length && list.every((w) => spelled.has(w))) found.push(`${rel}: ${name}`);
    }
  }
  return found;
}

describe("core's words", () => {
  it('are imported, never restated as a literal list, by the apps, libs and the console', () => {
    const restated = SCANNED.flatMap((d) => [...sources(join(ROOT, d))].flatMap((f) => restatedLists(f.rel, f.text)));
    expect(restated).toEqual([]);
  });

  it('recognise a restated list in an array or a union, in any order and across lines', () => {
    expect(restatedLists('a.ts', `const S = [\n  'skipped', 'succeeded',\n  "failed", 'canceled',\n];`)).toEqual([
      'a.ts: FINAL_RUN_STATUSES',
    ]);
    expect(restatedLists('b.ts', `type O = 'api' | 'file';`)).toEqual(['b.ts: ORIGINS']);
    expect(restatedLists('c.ts', `z.enum(['file', 'api', 'other'])`)).toEqual([]);
  });

  it('load nothing, so the CLI and the console take them without zod or cron-parser', () => {
    const index = readFileSync(join(__dirname, 'words.ts'), 'utf8');
    const modules = [...index.matchAll(/^export \* from '(\.[^']+)';$/gm)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(0);
    const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(
      code(index)
        .replace(/^export \* from '\.[^']+';$/gm, '')
        .trim(),
    ).toBe('');
    for (const m of modules) {
      const text = readFileSync(join(__dirname, `${m}.ts`), 'utf8');
      expect({ module: m, imports: /\b(import|require)\b|\bfrom\s+['"]/.test(code(text)) }).toEqual({
        module: m,
        imports: false,
      });
    }
  });

  it('tell settled from final: settled is final plus parked, and the complement of active', () => {
    const { RUN_STATUSES, FINAL_RUN_STATUSES, SETTLED_RUN_STATUSES, ACTIVE_RUN_STATUSES } = words;
    expect([...SETTLED_RUN_STATUSES].sort()).toEqual([...FINAL_RUN_STATUSES, 'parked'].sort());
    expect(RUN_STATUSES.filter((s) => !ACTIVE_RUN_STATUSES.includes(s))).toEqual(
      RUN_STATUSES.filter((s) => SETTLED_RUN_STATUSES.includes(s)),
    );
  });
});
