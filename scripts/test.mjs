// `npm test`: unit, int (real redis-server) and e2e (real processes) from a fresh clone.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureDependencies, ensureRedisServer, root } from './lib/ensure.mjs';

ensureDependencies();
ensureRedisServer();
const step = (args) => {
  const res = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
  if (res.status !== 0) process.exit(res.status ?? 1);
};
step([join(root, 'scripts', 'build.mjs')]); // e2e tests run the built apps
step([join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--coverage', ...process.argv.slice(2)]);
