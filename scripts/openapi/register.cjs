// Lets plain `node` load the repo's TypeScript the way jest and the build do (swc: decorators and
// their metadata, so Nest controllers carry their route specs) and resolve `@drover/<lib>` to
// libs/<lib>/src, without a build and without Redis: `node -r ./scripts/openapi/register.cjs x.ts`.
const Module = require('node:module');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = /^@drover\/([^/]+)$/.exec(request);
  return resolve.call(this, lib ? join(root, 'libs', lib[1], 'src') : request, ...rest);
};

require('ts-node').register({
  transpileOnly: true,
  swc: true,
  compilerOptions: { module: 'commonjs' },
});
