import * as nodeModule from 'node:module';

/**
 * Every `drover` is a fresh process: on Node.js ≥ 22.1 V8 keeps the compiled code of the CLI and
 * its dependencies in a cache on disk (os.tmpdir()/node-compile-cache; NODE_DISABLE_COMPILE_CACHE=1
 * turns it off), so a start after the first skips compiling them. Older Node.js has no such cache.
 * main.ts imports this first, before the modules it is meant to speed up.
 */
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
