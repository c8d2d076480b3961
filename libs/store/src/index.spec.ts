import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The store's surface stays bounded: its index names every export (no `export *`, which would
 * publish whatever a file happens to export), and exports exactly the names that code outside
 * libs/store imports from '@drover/store'. A name only the store uses stays inside it.
 */

const ROOT = resolve(__dirname, '../../..');
const INDEX = join(__dirname, 'index.ts');
/** Where the store's users live: the faces, the other libs, tests, benches, scripts, examples. */
const USER_DIRS = ['apps', 'libs', 'test', 'bench', 'scripts', 'observability', 'examples', 'console'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', '.drover']);
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const STORE_DIR = join(ROOT, 'libs', 'store');

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function* sourceFiles(dir: string): Generator<string> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && path !== STORE_DIR) yield* sourceFiles(path);
    } else if (SOURCE.test(e.name)) yield path;
  }
}

function specifierOf(node: ts.Node): string | undefined {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
    return ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : undefined;
  }
  return undefined;
}

/** Every name imported (or re-exported) from '@drover/store' outside libs/store, with who uses it. */
function namesUsedOutside(): { used: Map<string, string[]>; unnamed: string[] } {
  const used = new Map<string, string[]>();
  const unnamed: string[] = [];
  for (const file of USER_DIRS.flatMap((d) => [...sourceFiles(join(ROOT, d))])) {
    if (!readFileSync(file, 'utf8').includes('@drover/store')) continue;
    const where = relative(ROOT, file);
    const sf = parse(file);
    for (const st of sf.statements) {
      if (specifierOf(st) !== '@drover/store') continue;
      let elements: readonly (ts.ImportSpecifier | ts.ExportSpecifier)[] | undefined;
      if (ts.isImportDeclaration(st)) {
        const bindings = st.importClause?.namedBindings;
        elements = bindings && ts.isNamedImports(bindings) ? bindings.elements : undefined;
      } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
        elements = st.exportClause.elements;
      }
      if (!elements) {
        unnamed.push(where);
        continue;
      }
      for (const e of elements) {
        const name = (e.propertyName ?? e.name).text;
        used.set(name, [...(used.get(name) ?? []), where]);
      }
    }
    // require('@drover/store') or import('@drover/store'): which names it takes cannot be read.
    if (/(require|import)\(\s*['"]@drover\/store['"]\s*\)/.test(sf.text)) unnamed.push(where);
  }
  return { used, unnamed };
}

function indexExports(): { names: string[]; stars: string[] } {
  const names: string[] = [];
  const stars: string[] = [];
  for (const st of parse(INDEX).statements) {
    if (!ts.isExportDeclaration(st)) continue;
    if (!st.exportClause || !ts.isNamedExports(st.exportClause)) stars.push(st.getText());
    else names.push(...st.exportClause.elements.map((e) => e.name.text));
  }
  return { names, stars };
}

describe("the store's public surface (libs/store/src/index.ts)", () => {
  const { used, unnamed } = namesUsedOutside();
  const { names, stars } = indexExports();

  it('exports by name, never a whole module', () => {
    expect(stars).toEqual([]);
  });

  it('exports only names that code outside libs/store imports', () => {
    expect(names.filter((n) => !used.has(n))).toEqual([]);
  });

  it('exports every name that code outside libs/store imports', () => {
    const exported = new Set(names);
    const missing = [...used].filter(([n]) => !exported.has(n)).map(([n, files]) => `${n} (${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('is imported by name everywhere, so the check above sees every use', () => {
    expect(unnamed).toEqual([]);
  });

  it('sees the store in use (the scan found its users)', () => {
    expect(used.size).toBeGreaterThan(20);
  });
});
