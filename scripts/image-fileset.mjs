// Builds the file set of docker/Dockerfile's final stage without a Docker engine, the way the
// Dockerfile does: it reads the Dockerfile, applies .dockerignore to the build context, replays
// every stage's COPY lines and its `npm …` RUN lines (same commands, in a temp dir per stage) and
// leaves the final stage's files under --out. A file the runtime stage forgets to COPY is missing
// there too, so test/deploy/image.e2e-spec.ts, which starts every app from the result, fails.
//
//   node scripts/image-fileset.mjs [--out DIR] [--dockerfile docker/Dockerfile] [--context .]
//                                  [--cache-dir DIR | --no-cache] [--json]
//
// What it cannot replay it says so: the base image (node, Debian) is not built, and RUN lines
// that are not npm commands (apt-get, useradd) are listed as skipped. Those are allowed only
// before a stage's first COPY, where they cannot touch the app's files; anything else is an error.
// RUN results are cached like Docker's layer cache (key: everything the layer depends on), so a
// second run with the same lockfile and sources takes seconds.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const { DockerfileParser } = require('dockerfile-ast');
const dockerignore = require('@balena/dockerignore');

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
// The cache keeps what this run used and the few entries used last (a source edit makes a new
// build-stage entry of ~250 MB); anything a concurrent replay may still be using is younger than this.
const CACHE_KEEP = 4;
const CACHE_GRACE_MS = 15 * 60 * 1000;

class ReplayError extends Error {}

const sha = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(typeof p === 'string' ? p : p).update('\0');
  return h.digest('hex');
};

/** Runs a command; throws with its output when it fails. */
function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (res.status !== 0) {
    throw new ReplayError(`${cmd} ${args.join(' ')} failed (${res.status ?? res.signal}):\n${res.stderr ?? ''}`);
  }
  return res.stdout;
}

/** `cp -a`: keeps modes (Docker's COPY keeps them too) and is much faster than fs.cpSync here. */
function copyInto(src, dest) {
  mkdirSync(dirname(dest), { recursive: true });
  if (statSync(src).isDirectory()) {
    mkdirSync(dest, { recursive: true });
    run('cp', ['-a', `${src}/.`, dest]);
  } else run('cp', ['-a', src, dest]);
}

/** The build context as Docker sees it: the files under `context` that .dockerignore does not exclude. */
function loadContext(context) {
  const file = join(context, '.dockerignore');
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  const ig = dockerignore({ ignorecase: false }).add(lines);
  const exceptions = lines.map((l) => l.trim()).filter((l) => l.startsWith('!'));
  // An excluded directory can be skipped unless an exception pattern could re-include something below it.
  const mayReinclude = (dir) => exceptions.some((e) => /[*?[]/.test(e) || e.slice(1).startsWith(`${dir}/`));
  const included = new Set();
  const walk = (rel) => {
    for (const entry of readdirSync(join(context, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (ig.ignores(path) && !mayReinclude(path)) continue;
        walk(path);
      } else if (!ig.ignores(path)) included.add(path);
    }
  };
  walk('');
  return included;
}

/** The files (context-relative) a COPY source names: a file, or every included file below a directory. */
function contextFiles(included, src) {
  const clean = posix.normalize(src).replace(/\/$/, '');
  if (included.has(clean)) return { kind: 'file', files: [clean] };
  const prefix = clean === '.' ? '' : `${clean}/`;
  const files = [...included].filter((f) => f.startsWith(prefix)).sort();
  if (files.length === 0)
    throw new ReplayError(`COPY ${src}: not found in the build context (or excluded by .dockerignore)`);
  return { kind: 'dir', files, prefix };
}

// What the replay understands; anything else (ADD, SHELL, ONBUILD, …) stops it before any work.
const REPLAYED = new Set(
  'FROM ARG ENV LABEL WORKDIR COPY RUN USER EXPOSE ENTRYPOINT CMD HEALTHCHECK STOPSIGNAL VOLUME'.split(' '),
);

/** Splits a Dockerfile into stages of plain instruction records. */
function parseDockerfile(text) {
  const df = DockerfileParser.parse(text);
  const args = {};
  const stages = [];
  for (const ins of df.getInstructions()) {
    const keyword = ins.getKeyword();
    const line = ins.getRange().start.line + 1;
    const flags = ins.getFlags ? ins.getFlags().map((f) => [f.getName(), f.getValue()]) : [];
    const json = ins.getJSONStrings ? ins.getJSONStrings().map((j) => j.getJSONValue()) : [];
    const rec = { keyword, line, flags, json, args: ins.getArguments().map((a) => a.getValue()) };
    rec.content = ins.getArgumentsContent() ?? '';
    if (ins.getProperties) rec.props = ins.getProperties().map((p) => [p.getName(), p.getValue() ?? '']);
    if (!REPLAYED.has(keyword)) throw new ReplayError(`line ${line}: ${keyword} is not replayed`);
    if (keyword === 'FROM') {
      const image = rec.args[0].replace(/\$\{?(\w+)\}?/g, (_, v) => args[v] ?? '');
      stages.push({ name: ins.getBuildStage() ?? String(stages.length), image, instructions: [] });
    } else if (stages.length === 0) {
      if (keyword !== 'ARG') throw new ReplayError(`line ${line}: ${keyword} before the first FROM`);
      for (const [k, v] of rec.props) args[k] = v;
    } else stages[stages.length - 1].instructions.push(rec);
  }
  if (stages.length === 0) throw new ReplayError('no FROM in the Dockerfile');
  return stages;
}

/** `npm …` segments of a RUN line, or undefined when it runs anything else. */
function npmCommands(rec) {
  const text = rec.json.length ? rec.json.join(' ') : rec.content;
  const parts = text.split('&&').map((s) => s.trim().replace(/\s+/g, ' '));
  return parts.every((p) => /^npm( |$)/.test(p)) ? parts : undefined;
}

/**
 * Replays `dockerfile` against `context` into `out` (the final stage's root directory).
 * Returns what an image built from it would run: workdir, entrypoint, cmd, env, user, …
 */
export function buildFileset({ dockerfile, context, out, cacheDir, log = () => {} }) {
  const stages = parseDockerfile(readFileSync(dockerfile, 'utf8'));
  const included = loadContext(context);
  const work = mkdtempSync(join(tmpdir(), 'drover-image-stages-'));
  const roots = new Map(); // stage name → { dir, key }
  const skipped = [];
  const cache = { hits: 0, misses: 0 };
  const used = new Set();
  // npm_* and NODE_ENV of the calling npm/jest would change what `npm ci` installs; a Docker
  // build sees only the image's environment and the Dockerfile's ENV.
  const hostEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_ENV' && k !== 'INIT_CWD'),
  );
  let final;
  try {
    stages.forEach((stage, index) => {
      const isFinal = index === stages.length - 1;
      let dir = isFinal ? out : join(work, `stage-${index}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const state = { workdir: '/', env: {}, user: 'root', expose: [], labels: {}, entrypoint: [], cmd: [] };
      const inRoot = (p) => join(dir, posix.resolve(state.workdir, p));
      // Docker's layer cache, in short: a RUN's result depends on the base image and on every
      // instruction before it in the stage, including the content of what was copied.
      let key = sha('FROM', stage.image);
      // Planning pass: the key of every instruction and the last RUN whose result is cached.
      const plan = [];
      let copied = false;
      for (const rec of stage.instructions) {
        if (rec.keyword === 'COPY') {
          copied = true;
          const from = rec.flags.find(([n]) => n === 'from')?.[1];
          const unknown = rec.flags.filter(([n]) => !['from', 'chown', 'chmod', 'link'].includes(n));
          if (unknown.length) throw new ReplayError(`line ${rec.line}: COPY --${unknown[0][0]} is not replayed`);
          const list = rec.json.length ? rec.json : rec.args;
          if (list.some((a) => /[*?[]|\$/.test(a)) || rec.content.includes('<<')) {
            throw new ReplayError(`line ${rec.line}: COPY with wildcards, variables or heredocs is not replayed`);
          }
          const srcs = list.slice(0, -1);
          if (from !== undefined) {
            const source = roots.get(from);
            if (!source) throw new ReplayError(`line ${rec.line}: COPY --from=${from}: no earlier stage of that name`);
            key = sha(key, rec.keyword, rec.content, source.key);
          } else {
            const h = createHash('sha256');
            for (const src of srcs) {
              for (const f of contextFiles(included, src).files) h.update(f).update(readFileSync(join(context, f)));
            }
            key = sha(key, rec.keyword, rec.content, h.digest('hex'));
          }
        } else if (rec.keyword === 'RUN') {
          if (rec.flags.length) throw new ReplayError(`line ${rec.line}: RUN --${rec.flags[0][0]} is not replayed`);
          if (!npmCommands(rec) && copied) {
            throw new ReplayError(
              `line ${rec.line}: a RUN that is not an npm command after a COPY cannot be replayed here ` +
                `(it could change the app's files); move system steps before the stage's first COPY`,
            );
          }
          key = sha(key, rec.keyword, rec.content);
        } else key = sha(key, rec.keyword, rec.content);
        plan.push({ rec, key });
      }
      let start = 0;
      for (let i = plan.length - 1; i >= 0; i--) {
        const snap = cacheDir && join(cacheDir, plan[i].key);
        if (plan[i].rec.keyword === 'RUN' && npmCommands(plan[i].rec) && snap && existsSync(snap)) {
          cache.hits++;
          used.add(plan[i].key);
          utimesSync(snap, new Date(), new Date());
          // The last instruction of a non-final stage: read from the cache in place, no copy.
          if (i === plan.length - 1 && !isFinal) {
            rmSync(dir, { recursive: true, force: true });
            dir = snap;
          } else copyInto(snap, dir);
          log(`${stage.name}: cached up to line ${plan[i].rec.line}`);
          start = i + 1;
          break;
        }
      }
      // Instructions before `start` are in the cached snapshot, but their metadata still counts.
      plan.forEach(({ rec, key: stepKey }, i) => {
        const replay = i >= start;
        switch (rec.keyword) {
          case 'WORKDIR':
            if (rec.content.includes('$')) throw new ReplayError(`line ${rec.line}: WORKDIR with variables`);
            state.workdir = posix.resolve(state.workdir, rec.content.trim());
            if (replay) mkdirSync(join(dir, state.workdir), { recursive: true });
            break;
          case 'ENV':
            for (const [k, v] of rec.props) {
              if (v.includes('$')) throw new ReplayError(`line ${rec.line}: ENV ${k} with variables is not replayed`);
              state.env[k] = v;
            }
            break;
          case 'LABEL':
            for (const [k, v] of rec.props) state.labels[k] = v;
            break;
          case 'USER':
            state.user = rec.content.trim();
            break;
          case 'EXPOSE':
            state.expose = [...state.expose, ...rec.args];
            break;
          case 'ENTRYPOINT':
          case 'CMD':
            if (!rec.json.length)
              throw new ReplayError(`line ${rec.line}: ${rec.keyword} must use the exec (JSON) form`);
            if (rec.keyword === 'ENTRYPOINT') {
              state.entrypoint = rec.json;
              state.cmd = []; // Docker resets an inherited CMD when ENTRYPOINT is set
            } else state.cmd = rec.json;
            break;
          case 'COPY': {
            if (!replay) break;
            const list = rec.json.length ? rec.json : rec.args;
            const dest = list[list.length - 1];
            const srcs = list.slice(0, -1);
            const from = rec.flags.find(([n]) => n === 'from')?.[1];
            const destIsDir = dest.endsWith('/') || srcs.length > 1;
            for (const src of srcs) {
              if (from !== undefined) {
                const source = roots.get(from);
                const path = join(source.dir, posix.resolve(source.workdir, src));
                if (!existsSync(path)) throw new ReplayError(`line ${rec.line}: COPY --from=${from} ${src}: not found`);
                const isDir = lstatSync(path).isDirectory();
                const target = destIsDir && !isDir ? join(inRoot(dest), posix.basename(src)) : inRoot(dest);
                copyInto(path, target);
              } else {
                const found = contextFiles(included, src);
                for (const f of found.files) {
                  const target =
                    found.kind === 'file'
                      ? destIsDir
                        ? join(inRoot(dest), posix.basename(f))
                        : inRoot(dest)
                      : join(inRoot(dest), f.slice(found.prefix.length));
                  copyInto(join(context, f), target);
                }
              }
            }
            break;
          }
          case 'RUN': {
            if (!replay) break;
            const cmds = npmCommands(rec);
            if (!cmds) {
              skipped.push({ stage: stage.name, line: rec.line, command: rec.content.replace(/\s+/g, ' ') });
              break;
            }
            const snap = cacheDir && join(cacheDir, stepKey);
            // Another replay (a parallel test file) may be running this very step: wait for its result.
            if (snap && lockStep(snap) === 'ready') {
              rmSync(dir, { recursive: true, force: true });
              copyInto(snap, dir);
              cache.hits++;
              used.add(stepKey);
              log(`${stage.name}: line ${rec.line} done by another replay meanwhile`);
              break;
            }
            try {
              for (const cmd of cmds) {
                log(`${stage.name}: RUN ${cmd}`);
                const t0 = Date.now();
                run('sh', ['-c', cmd], {
                  cwd: join(dir, state.workdir),
                  env: { ...hostEnv, ...state.env },
                  stdio: ['ignore', 'ignore', 'pipe'],
                });
                log(`${stage.name}: ${cmd} took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
              }
              cache.misses++;
              if (snap) {
                // Entries are content-addressed and never replaced, so a reader never sees one change.
                const tmp = `${snap}.tmp-${process.pid}`;
                copyInto(dir, tmp);
                renameSync(tmp, snap);
                used.add(stepKey);
              }
            } finally {
              if (snap) rmSync(`${snap}.lock`, { recursive: true, force: true });
            }
            break;
          }
          case 'ARG':
          case 'HEALTHCHECK':
          case 'STOPSIGNAL':
          case 'VOLUME':
            break;
          default:
            throw new ReplayError(`line ${rec.line}: ${rec.keyword} is not replayed`);
        }
      });
      roots.set(stage.name, { dir, key, workdir: state.workdir });
      roots.set(String(index), roots.get(stage.name));
      if (isFinal) final = { stage: stage.name, ...state };
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (cacheDir && existsSync(cacheDir)) pruneCache(cacheDir, used);
  }
  return { ...final, rootfs: out, skipped, cache };
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const STALE_LOCK_MS = 15 * 60 * 1000;

/**
 * Takes the lock of a cache entry about to be made ('locked'), or returns 'ready' once the entry
 * exists (made by another process while this one waited). A lock older than any npm ci is stale.
 */
function lockStep(snap) {
  mkdirSync(dirname(snap), { recursive: true });
  for (;;) {
    if (existsSync(snap)) return 'ready';
    try {
      mkdirSync(`${snap}.lock`);
      if (!existsSync(snap)) return 'locked';
      rmSync(`${snap}.lock`, { recursive: true, force: true });
      return 'ready';
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    try {
      if (Date.now() - statSync(`${snap}.lock`).mtimeMs > STALE_LOCK_MS)
        rmSync(`${snap}.lock`, { recursive: true, force: true });
    } catch {
      // released meanwhile: try again
    }
    sleep(500);
  }
}

function pruneCache(cacheDir, used) {
  const entries = readdirSync(cacheDir)
    .map((name) => ({ name, mtime: statSync(join(cacheDir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  let kept = 0;
  for (const e of entries) {
    const isEntry = /^[0-9a-f]{64}$/.test(e.name);
    if (used.has(e.name) || (isEntry && kept++ < CACHE_KEEP) || Date.now() - e.mtime < CACHE_GRACE_MS) continue;
    rmSync(join(cacheDir, e.name), { recursive: true, force: true });
  }
}

/** `du -sk` in bytes: disk usage as `du -sh` reports it. */
function diskUsage(path) {
  return Number(run('du', ['-sk', path]).split(/\s/)[0]) * 1024;
}

function countFiles(path) {
  let n = 0;
  for (const e of readdirSync(path, { withFileTypes: true, recursive: true })) if (!e.isDirectory()) n++;
  return n;
}

export function measure(result) {
  const app = join(result.rootfs, result.workdir);
  const part = (p) => (existsSync(join(app, p)) ? diskUsage(join(app, p)) : 0);
  return {
    total: diskUsage(result.rootfs),
    files: countFiles(result.rootfs),
    nodeModules: part('node_modules'),
    dist: part('dist'),
  };
}

const mib = (b) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

function main() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      dockerfile: { type: 'string', default: join(ROOT, 'docker', 'Dockerfile') },
      context: { type: 'string', default: ROOT },
      'cache-dir': { type: 'string', default: join(tmpdir(), 'drover-image-layers') },
      'no-cache': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const out = resolve(values.out ?? mkdtempSync(join(tmpdir(), 'drover-image-')));
  if (existsSync(out) && readdirSync(out).length > 0 && !existsSync(join(out, '.drover-image-fileset'))) {
    throw new ReplayError(`--out ${out} is not empty and not an earlier file set: refusing to clear it`);
  }
  const t0 = Date.now();
  const result = buildFileset({
    dockerfile: resolve(values.dockerfile),
    context: resolve(values.context),
    out,
    cacheDir: values['no-cache'] ? undefined : resolve(values['cache-dir']),
    log: (m) => process.stderr.write(`image-fileset: ${m}\n`),
  });
  const sizes = measure(result);
  // A marker so that a later run may clear this directory (and no other) with --out.
  run('touch', [join(out, '.drover-image-fileset')]);
  // mkdtemp makes 0700 directories; the image's files are readable by any user, so is this.
  chmodSync(out, 0o755);
  const summary = { ...result, sizes, seconds: (Date.now() - t0) / 1000 };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const rel = (p) => relative(process.cwd(), p) || '.';
  console.log(`final stage "${result.stage}" replayed into ${rel(out)} in ${summary.seconds.toFixed(1)} s`);
  console.log(`  workdir ${result.workdir}, user ${result.user}, expose ${result.expose.join(' ')}`);
  console.log(`  runs    ${JSON.stringify([...result.entrypoint, ...result.cmd])}`);
  console.log(
    `  size    ${mib(sizes.total)} in ${sizes.files} files (node_modules ${mib(sizes.nodeModules)}, dist ${mib(sizes.dist)})`,
  );
  console.log(`  cache   ${result.cache.hits} RUN results reused, ${result.cache.misses} run`);
  for (const s of result.skipped) console.log(`  not replayed (system step, ${s.stage} line ${s.line}): ${s.command}`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  try {
    main();
  } catch (err) {
    if (!(err instanceof ReplayError)) throw err;
    console.error(`image-fileset: ${err.message}`);
    process.exit(1);
  }
}
