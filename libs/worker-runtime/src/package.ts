// The entry of the `@drover/worker` npm package (scripts/lib/packages.mjs): everything a team needs to
// boot a worker app of its own — the worker role and its handler API, the platform that gives every
// Drover app its config, logs, Redis, health, metrics and graceful shutdown, and the typed errors a
// handler throws or meets. docs/worker.md imports only from here; package.spec.ts checks that it can.
export * from './index';
export {
  PlatformModule,
  ReadinessRegistry,
  runApp,
  droverVersion,
  type AppSpec,
  type ReadinessCheck,
} from '@drover/platform';
export { AppConfig, ConfigError, type DroverEnv } from '@drover/config';
export { InvalidPayloadError, type PayloadIssue } from '@drover/core';
// The logger `runApp` hands to the module factory (pino's, a dependency of the package).
export type { Logger } from 'pino';
