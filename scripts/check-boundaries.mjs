// Who may import whom, checked offline by `npm run lint`. docs/architecture.md draws the same map.
//   - a library imports only the libraries its row of LIBRARIES names (type-only imports count: a
//     type is a compile-time dependency, and a package that ships the importer must ship the type);
//   - an app imports only the libraries its row of APPS names, and never another app;
//   - no relative path leaves its own library or app (`../../store/src/...` hides a dependency);
//   - the api app's closure never reaches a role (scheduler, worker runtime, built-in handlers) or
//     the producer client: the api image must not load their code.
// Test files and test support (`*.spec.ts`, `testing/` folders) may also import @drover/testing.
// `node scripts/check-boundaries.mjs [root]`: exit 0 when clean, 1 with one line per problem.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { sourceFiles } from './lib/source-files.mjs';

/** Each library and the libraries it may import. */
export const LIBRARIES = {
  core: [],
  metrics: [],
  'api-client': [],
  config: ['core'],
  logger: ['config'],
  redis: ['core', 'config', 'logger'],
  platform: ['core', 'config', 'logger', 'metrics', 'redis'],
  store: ['core', 'config', 'logger', 'metrics', 'redis'],
  api: ['core', 'config', 'logger', 'metrics', 'platform', 'redis', 'store'],
  client: ['core', 'config', 'redis', 'store'],
  scheduler: ['core', 'config', 'logger', 'metrics', 'platform', 'redis', 'store'],
  'worker-runtime': ['core', 'config', 'logger', 'metrics', 'platform', 'redis', 'store'],
  builtins: ['core', 'config', 'logger', 'platform', 'scheduler', 'worker-runtime'],
  testing: ['core', 'config', 'logger', 'redis', 'store'],
};

/** Each app and the libraries it may import. */
export const APPS = {
  api: ['api', 'config', 'platform'],
  scheduler: ['builtins', 'config', 'platform'],
  worker: ['builtins', 'config', 'platform'],
  standalone: ['api', 'builtins', 'config', 'platform'],
  // @drover/config only lazily, by `drover validate`: the policy file's own loader.
  cli: ['api-client', 'core', 'config'],
};

/**
 * Relative imports allowed to cross a boundary, file to file, each with why a by-name import will not do.
 * Keep it short: every entry is a dependency the tables above do not show.
 */
export const CROSSINGS = {
  'libs/testing/src/redis-server.ts': {
    'libs/redis/src/server-settings.ts': "jest's global setup loads it without the @drover/* path mapping",
  },
  'apps/cli/src/program.ts': {
    'libs/platform/src/version.ts': "one file: the platform's index loads NestJS, which a CLI command must not pay for",
  },
};

/** Other source roots: the web console runs in browsers and talks to the api only over HTTP. */
export const OTHERS = {
  console: ['api-client', 'core'],
};

/** Libraries the api app must never load, directly or through another library. */
export const API_MUST_NOT_LOAD = ['scheduler', 'worker-runtime', 'builtins', 'client'];

const TEST_ONLY = [/\.(spec|int-spec|e2e-spec|typecheck)\.ts$/, /(^|\/)(test|testing)\//];
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"]([^'"\s]+)['"]/g;

const where = (kind, name) => (kind === '.' ? name : `${kind}/${name}`);

/** The libraries reachable from `start` through LIBRARIES, `start` itself excluded. */
export function reachable(start, graph = LIBRARIES) {
  const seen = new Set();
  const todo = [...start];
  while (todo.length > 0) {
    const lib = todo.pop();
    if (seen.has(lib)) continue;
    seen.add(lib);
    todo.push(...(graph[lib] ?? []));
  }
  return seen;
}

/**
 * The problems of the project at `root`, one sentence each (empty when clean). `graph` and `apps`
 * are parameters so the check itself can be tested on small trees.
 */
export function checkBoundaries(root, graph = LIBRARIES, apps = APPS, others = OTHERS) {
  const problems = [];
  const units = [];
  for (const [kind, table] of [
    ['libs', graph],
    ['apps', apps],
  ]) {
    let names = [];
    try {
      names = readdirSync(join(root, kind), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      // A tree without this folder has nothing to check in it.
    }
    for (const name of names) units.push({ kind, name, home: join(root, kind, name), allowed: table[name] });
  }
  for (const [name, allowed] of Object.entries(others))
    units.push({ kind: '.', name, home: join(root, name), allowed });
  for (const { kind, name, home, allowed } of units) {
    if (!allowed) {
      problems.push(`${kind}/${name}: not in the boundary map; add its row to scripts/check-boundaries.mjs`);
      continue;
    }
    for (const file of sourceFiles(join(home, 'src'), /\.(ts|tsx)$/)) {
      const rel = relative(root, file).split(sep).join('/');
      const testOnly = TEST_ONLY.some((re) => re.test(rel));
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(SPECIFIER)) {
        const spec = m[1];
        const lib = /^@drover\/([^/]+)/.exec(spec)?.[1];
        if (lib !== undefined) {
          if (kind === 'libs' && lib === name) continue;
          if (testOnly && lib === 'testing') continue;
          if (!allowed.includes(lib)) {
            problems.push(`${rel}: imports @drover/${lib}, which ${where(kind, name)} may not import`);
          }
        } else if (spec.startsWith('.')) {
          const target = normalize(join(dirname(file), spec));
          const to = relative(root, target).split(sep).join('/');
          const crossing = CROSSINGS[rel]?.[`${to}.ts`] ?? CROSSINGS[rel]?.[to];
          if (!target.startsWith(home + sep) && crossing === undefined) {
            problems.push(`${rel}: relative import ${spec} leaves ${where(kind, name)}; import the library by name`);
          }
        }
      }
    }
  }
  if (apps.api) {
    const loaded = reachable(apps.api, graph);
    for (const lib of API_MUST_NOT_LOAD) {
      if (loaded.has(lib)) problems.push(`apps/api: the boundary map lets it load libs/${lib}; the api must not`);
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = process.argv[2] ?? new URL('..', import.meta.url).pathname;
  const problems = checkBoundaries(root);
  for (const p of problems) console.error(`check-boundaries: ${p}`);
  if (problems.length > 0) process.exit(1);
  console.log('check-boundaries: every import stays inside the boundary map');
}
