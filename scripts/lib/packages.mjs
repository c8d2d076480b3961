// The npm packages `npm run pack` builds: one small definition each. `entry` is the TypeScript file the
// package's `main` compiles from (every internal lib it reaches is compiled in with it); `dependencies`
// and `peerDependencies` name packages of the root package.json (their ranges come from there);
// every bare require of the compiled code must be one of them or a Node built-in, or the pack fails.
//
// Peers are what the application holds one copy of: its NestJS, its BullMQ queues, its ioredis client,
// the zod schemas it shares with Drover's contracts. A second copy of any of them breaks `instanceof`,
// Nest's module tokens or schema checks in ways that only show at run time.
const NEST_PEERS = ['@nestjs/common', '@nestjs/core', 'reflect-metadata', 'rxjs'];
const SHARED_PEERS = ['bullmq', 'ioredis', 'zod'];

export const PACKAGES = [
  {
    name: '@drover/client',
    dir: 'client',
    description: 'Enqueue, track and trigger Drover work from any NestJS service (the producer module)',
    entry: 'libs/client/src/index.ts',
    readme: 'docs/client.md',
    dependencies: ['cron-parser', 'pino', 'yaml'],
    peerDependencies: [...NEST_PEERS, ...SHARED_PEERS],
  },
  {
    name: '@drover/worker',
    dir: 'worker',
    description:
      'Run your own Drover job handlers in your own NestJS worker app (handlers, config, health, metrics, drain)',
    entry: 'libs/worker-runtime/src/package.ts',
    readme: 'docs/worker.md',
    dependencies: ['@nestjs/terminus', 'cron-parser', 'helmet', 'pino', 'pino-pretty', 'prom-client', 'yaml'],
    // NestFactory.create loads @nestjs/platform-express by name: the app's HTTP adapter, one copy.
    // @nestjs/bullmq: only an app coming from it needs it (DroverBullModule loads it when used), and
    // then its BullModule and Drover's must be one copy.
    peerDependencies: [...NEST_PEERS, '@nestjs/platform-express', ...SHARED_PEERS, '@nestjs/bullmq'],
    optionalPeers: ['@nestjs/bullmq'],
  },
  {
    name: '@drover/cli',
    dir: 'cli',
    description: 'The `drover` command line: runs, routines, queues and policy files of a Drover cluster',
    entry: 'apps/cli/src/main.ts',
    readme: 'docs/cli.md',
    // A command-line tool has no application around it: it brings its own copies. No NestJS:
    // `drover validate` loads the policy-file loader alone (`@drover/config/config-file`).
    dependencies: ['commander', 'cron-parser', 'openapi-fetch', 'yaml', 'zod'],
    peerDependencies: [],
    bin: { drover: 'dist/apps/cli/src/main.js' },
  },
];
