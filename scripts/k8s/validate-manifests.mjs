// Validates rendered Kubernetes manifests offline against the schemas the kubernetes-models packages ship
// (Kubernetes, KEDA, prometheus-operator), in two passes:
//   1. each object through its model's validator (types, enums, required fields, formats);
//   2. every object as a TypeScript literal `satisfies` its model's interface, type-checked by tsc: excess
//      property checks reject a field the schema does not know, at any depth (the validators of pass 1
//      accept unknown fields, and the API server would drop them silently or refuse them).
//
//   node scripts/k8s/validate-manifests.mjs <rendered.yaml | kustomize dir>...
//
// A directory is rendered with `kubectl kustomize` first. Prints one line per problem and a summary; exits 1
// when any object fails (or has no known schema), 0 when all pass.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The kubernetes-models module (and interface) of an apiVersion + kind; undefined when none ships it. */
function modelOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const crdPackages = {
    'keda.sh': '@kubernetes-models/keda',
    'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  };
  const pkg = crdPackages[group] ?? 'kubernetes-models';
  const path = group ? `${pkg}/${group}/${version}/${kind}` : `${pkg}/${version}/${kind}`;
  const file = join(ROOT, 'node_modules', ...path.split('/')) + '.js';
  return existsSync(file) ? { module: path, iface: `I${kind}` } : undefined;
}

function render(source) {
  if (!statSync(source).isDirectory()) return readFileSync(source, 'utf8');
  const res = spawnSync('kubectl', ['kustomize', source], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (res.error) throw new Error(`kubectl kustomize ${source}: ${res.error.message} (is kubectl installed?)`);
  if (res.status !== 0) throw new Error(`kubectl kustomize ${source} failed: ${res.stderr}`);
  return res.stdout;
}

function load(sources) {
  const objects = [];
  for (const source of sources) {
    for (const doc of parseAllDocuments(render(source))) {
      if (doc.errors.length) throw new Error(`${source}: ${doc.errors[0].message}`);
      const obj = doc.toJS();
      if (obj === null || obj === undefined) continue;
      objects.push({ source: relative(process.cwd(), source) || source, obj });
    }
  }
  return objects;
}

const label = ({ source, obj }) => `${source}: ${obj.kind}/${obj.metadata?.name ?? '?'}`;

async function validateModels(objects) {
  const problems = [];
  for (const item of objects) {
    const { apiVersion, kind } = item.obj;
    const model = typeof apiVersion === 'string' && typeof kind === 'string' ? modelOf(apiVersion, kind) : undefined;
    if (!model) {
      problems.push(`${label(item)}: no schema for ${apiVersion} ${kind}`);
      continue;
    }
    item.model = model;
    const Model = (await import(model.module))[kind];
    try {
      new Model(item.obj).validate();
    } catch (err) {
      problems.push(`${label(item)}: ${err.message.split('\n').slice(0, 6).join(' | ')}`);
    }
  }
  return problems;
}

/** Pass 2: tsc over `const oN = <object> satisfies I<Kind>;` lines; maps each error back to its object. */
function validateFields(objects) {
  const typed = objects.filter((o) => o.model);
  if (typed.length === 0) return [];
  // Inside the repository so that tsc resolves the packages from its node_modules.
  const cacheDir = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const dir = mkdtempSync(join(cacheDir, 'drover-k8s-fields-'));
  try {
    const imports = new Map();
    for (const { model } of typed) imports.set(`${model.module}:${model.iface}`, model);
    const lines = [...imports.values()].map((m, i) => `import type { ${m.iface} as T${i} } from '${m.module}';`);
    const alias = new Map([...imports.keys()].map((k, i) => [k, `T${i}`]));
    const firstLine = new Map();
    typed.forEach((item, i) => {
      firstLine.set(lines.length + 1, item);
      // One object per line, so an error's line number names its object.
      lines.push(
        `export const o${i} = ${JSON.stringify(item.obj)} satisfies ${alias.get(`${item.model.module}:${item.model.iface}`)};`,
      );
    });
    writeFileSync(join(dir, 'objects.ts'), lines.join('\n') + '\n');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          skipLibCheck: true,
          types: [],
        },
        files: ['objects.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const res = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (res.status === 0) return [];
    const problems = [];
    for (const line of res.stdout.split('\n').filter(Boolean)) {
      const m = /objects\.ts\((\d+),\d+\): error TS\d+: (.*)$/.exec(line);
      const item = m && firstLine.get(Number(m[1]));
      problems.push(item ? `${label(item)}: ${m[2]}` : `tsc: ${line}`);
    }
    return problems.length ? problems : [`tsc failed: ${res.stderr || res.stdout}`];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(args) {
  if (args.length === 0) throw new Error('usage: validate-manifests.mjs <rendered.yaml | kustomize dir>...');
  const objects = load(args);
  const problems = [...(await validateModels(objects)), ...validateFields(objects)];
  for (const p of problems) console.log(`invalid ${p}`);
  const kinds = [...new Set(objects.map((o) => `${o.obj.apiVersion} ${o.obj.kind}`))].sort();
  console.log(
    `${problems.length === 0 ? 'valid' : 'INVALID'}: ${objects.length} objects from ${args.join(', ')} ` +
      `(${kinds.join(', ')}); ${problems.length} problem(s)`,
  );
  return problems.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
