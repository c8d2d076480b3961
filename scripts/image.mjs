// `npm run image`: builds Drover's one image from docker/Dockerfile, tags it `<registry>/drover:<version>`
// (the version of package.json), optionally pushes it, and points kustomize overlays at it.
//
//   npm run image -- --registry registry.example.com/team --push --overlay prod
//   node scripts/image.mjs [--registry R] [--tag T] [--push] [--overlay dev|prod|DIR]… [--no-build] [--dry-run]
//
// Without --registry the image is the local `drover:<version>`, the name the overlays carry by default
// (load it into kind, minikube or k3d for the dev overlay). A pushed image is pinned in the overlays by
// its digest as well as its tag, so a re-pushed tag cannot change what the pods run.
// The overlay edit is what `kustomize edit set image drover=<image>` does (newName, newTag, digest of
// the `drover` entry of `images:`), done here with the yaml library so that the file's comments stay
// and no standalone kustomize is needed. See docs/deploy.md, "Your image in your registry".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseDocument } from 'yaml';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
/** The image name the manifests of k8s/base use; overlays rewrite it through `images:`. */
const IMAGE_NAME = 'drover';
const KUSTOMIZATION = 'kustomization.yaml';

class UsageError extends Error {}
class StepError extends Error {}

const USAGE = `usage: npm run image -- [--registry R] [--tag T] [--push] [--overlay dev|prod|DIR]... [--no-build] [--dry-run]

  --registry R   where the image goes, without https:// (registry.example.com/team, ghcr.io/you);
                 the image is R/drover:<tag>. Without it: the local drover:<tag>.
  --tag T        the tag (default: the version in package.json)
  --push         docker push the image, then pin its digest in the overlays (needs --registry)
  --overlay O    point this kustomize overlay at the image: dev, prod or a directory holding a
                 ${KUSTOMIZATION} (repeatable)
  --no-build     do not build: push an image already built under that name, or only edit overlays
  --dry-run      print the docker commands and the overlay edits; run and write nothing`;

// Docker's reference grammar, lowercased: host[:port] then path components.
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REGISTRY = new RegExp(`^${COMPONENT}(?::[0-9]+)?(?:/${COMPONENT})*$`);
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

function options(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        registry: { type: 'string' },
        tag: { type: 'string' },
        push: { type: 'boolean', default: false },
        overlay: { type: 'string', multiple: true, default: [] },
        'no-build': { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new UsageError(err.message);
  }
  if (values.help) return { help: true };
  const registry = values.registry?.replace(/\/+$/, '');
  if (registry !== undefined) {
    if (/^[a-z]+:\/\//i.test(registry)) {
      throw new UsageError(
        `--registry ${registry}: give the registry path without the scheme (${registry.replace(/^[a-z]+:\/\//i, '')})`,
      );
    }
    if (!REGISTRY.test(registry)) {
      throw new UsageError(
        `--registry ${registry}: not a registry path; expected host[:port][/path] in lowercase, e.g. registry.example.com/team`,
      );
    }
  }
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  const tag = values.tag ?? version;
  if (!TAG.test(tag))
    throw new UsageError(`--tag ${tag}: a tag is letters, digits, _ . - (at most 128, not starting with . or -)`);
  if (values.push && registry === undefined) {
    throw new UsageError('--push needs --registry: a bare drover:<tag> would go to Docker Hub under library/drover');
  }
  const overlays = values.overlay.map(overlayDir);
  return {
    name: registry === undefined ? IMAGE_NAME : `${registry}/${IMAGE_NAME}`,
    tag,
    version,
    push: values.push,
    build: !values['no-build'],
    dryRun: values['dry-run'],
    overlays,
  };
}

/** `dev`/`prod` name an overlay of k8s/overlays; anything else is a directory holding a kustomization. */
function overlayDir(arg) {
  const dir = /^[a-z0-9-]+$/.test(arg) && !existsSync(arg) ? join(ROOT, 'k8s', 'overlays', arg) : resolve(arg);
  if (!existsSync(join(dir, KUSTOMIZATION))) {
    throw new UsageError(
      `--overlay ${arg}: no ${KUSTOMIZATION} in ${shown(dir)} (use dev, prod or a kustomization's directory)`,
    );
  }
  return dir;
}

const shown = (p) => {
  const rel = relative(process.cwd(), p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
};

/** Stops with a clear line when there is no docker command or its daemon does not answer. */
function requireDocker() {
  const res = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8' });
  if (res.error?.code === 'ENOENT') {
    throw new StepError(
      'docker is not installed here (no `docker` on PATH). Install Docker, or build on a machine that has it\n' +
        '  (docker build -f docker/Dockerfile -t <registry>/drover:<version> .) and point the overlays at that\n' +
        '  image with: npm run image -- --registry <registry> --no-build --overlay <overlay>',
    );
  }
  if (res.error) throw new StepError(`docker could not be run: ${res.error.message}`);
  if (res.status !== 0) {
    const why = (res.stderr || res.stdout).trim().split('\n').pop();
    throw new StepError(
      `docker is installed but its daemon does not answer: ${why}\n  Start Docker (or set DOCKER_HOST) and run this again.`,
    );
  }
}

function docker(args, { dryRun, capture = false }) {
  console.log(`image: docker ${args.join(' ')}`);
  if (dryRun) return '';
  const res = spawnSync('docker', args, {
    cwd: ROOT,
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    encoding: 'utf8',
  });
  if (res.status !== 0)
    throw new StepError(`docker ${args[0]} failed (exit ${res.status ?? res.signal}); see its output above`);
  return capture ? res.stdout.trim() : '';
}

/** The `sha256:…` digest the registry gave the pushed image, read from docker's RepoDigests. */
function pushedDigest(name, ref, dryRun) {
  if (dryRun) return undefined;
  const digests = JSON.parse(
    docker(['image', 'inspect', '--format', '{{json .RepoDigests}}', ref], { dryRun, capture: true }),
  );
  const mine = (digests ?? []).find((d) => d.startsWith(`${name}@`));
  if (!mine)
    throw new StepError(`docker knows no digest of ${name} after the push (RepoDigests: ${JSON.stringify(digests)})`);
  return mine.slice(name.length + 1);
}

/**
 * Sets the `drover` entry of the overlay's `images:` to name:tag(@digest), adding the entry (and the
 * list) when missing, as `kustomize edit set image` does. Returns the new file text.
 */
export function setImage(text, { name, tag, digest }) {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new StepError(`not valid YAML: ${doc.errors[0].message}`);
  if (!doc.has('images')) doc.set('images', doc.createNode([]));
  const images = doc.get('images');
  let entry = images.items.find((i) => i.get?.('name') === IMAGE_NAME);
  if (!entry) {
    entry = doc.createNode({ name: IMAGE_NAME });
    images.items.unshift(entry);
  }
  // In kustomize's own order: name, newName, newTag, digest.
  for (const key of ['newName', 'newTag', 'digest']) entry.delete(key);
  if (name !== IMAGE_NAME) entry.set('newName', name);
  entry.set('newTag', tag);
  if (digest) entry.set('digest', digest);
  return doc.toString({ lineWidth: 0 });
}

function main(argv) {
  const opts = options(argv);
  if (opts.help) {
    console.log(USAGE);
    return;
  }
  const ref = `${opts.name}:${opts.tag}`;
  if ((opts.build || opts.push) && !opts.dryRun) requireDocker();
  if (opts.build) {
    const build = ['build', '-f', 'docker/Dockerfile', '--build-arg', `VERSION=${opts.version}`, '-t', ref, '.'];
    docker(build, opts);
  }
  let digest;
  if (opts.push) {
    docker(['push', ref], opts);
    digest = pushedDigest(opts.name, ref, opts.dryRun);
  }
  for (const dir of opts.overlays) {
    const file = join(dir, KUSTOMIZATION);
    const before = readFileSync(file, 'utf8');
    const after = setImage(before, { name: opts.name, tag: opts.tag, digest });
    const image = `${ref}${digest ? `@${digest}` : ''}`;
    if (after === before) console.log(`image: ${shown(file)} already runs ${image}`);
    else if (opts.dryRun) console.log(`image: would point ${shown(file)} at ${image}`);
    else {
      writeFileSync(file, after);
      console.log(`image: ${shown(file)} now runs ${image}`);
    }
  }
  if (opts.overlays.length > 0 && !opts.dryRun) {
    console.log(`image: check with kubectl kustomize ${opts.overlays.map(shown).join(' ')} | grep image:`);
  }
  if (!opts.push && opts.name !== IMAGE_NAME && opts.build && !opts.dryRun) {
    console.log(`image: built ${ref}; push it with --push (or docker push ${ref}) before a cluster can pull it`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`image: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (err instanceof StepError) {
      console.error(`image: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}
