// `npm test`: unit, int (real redis-server) and e2e (real processes) from a fresh clone.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureDependencies, ensureTestTools, root } from './lib/ensure.mjs';

ensureDependencies();
// redis-server, Prometheus, chromium, tmux…: installed with apt-get when this machine can (root or
// sudo); otherwise named, with the tests that need them.
ensureTestTools();
const step = (args) => {
  const res = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
  if (res.status !== 0) process.exit(res.status ?? 1);
};
step([join(root, 'scripts', 'build.mjs')]); // e2e tests run the built apps
const jestArgs = process.argv.slice(2);
// The outside-consumer tests (packs the packages, installs examples/nest-producer and examples/nest-worker,
// runs them against real processes): part of a full run, before jest so that their output does not end up
// between jest's summaries; `npm test -- <jest args>` runs only what jest selects.
let example = 0;
if (jestArgs.length === 0) {
  example = spawnSync(process.execPath, [join(root, 'scripts', 'test-example.mjs')], {
    stdio: 'inherit',
    cwd: root,
  }).status;
} else console.log('examples: skipped (jest arguments given; `npm run test:example` runs them)');
// --forceExit: after a full run (every suite passed, the global teardown done) jest's main
// process has been seen to stay alive with no handle Node reports (getActiveResourcesInfo is
// empty); CI must not hang on that. Suites still close what they open — see the tests' afterAll.
step([join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--coverage', '--forceExit', ...jestArgs]);
if (example !== 0) {
  console.error('examples: FAILED (see above)');
  process.exit(example ?? 1);
}
