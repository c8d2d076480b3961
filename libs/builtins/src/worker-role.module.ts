import { Module } from '@nestjs/common';
import { WorkerRuntimeModule } from '@drover/worker-runtime';
import { HttpRequestHandler } from './handlers/http-request.handler';
import { NoopHandler } from './handlers/noop.handler';
import { SleepHandler } from './handlers/sleep.handler';
import { droverVersion } from '@drover/platform';

/**
 * The worker role with Drover's built-in handlers (`noop`, `sleep`, `http.request`); the worker
 * and standalone apps import it, and so may a team's own worker app (docs/worker.md).
 */
@Module({
  imports: [WorkerRuntimeModule.forRoot({ version: droverVersion() })],
  providers: [NoopHandler, SleepHandler, HttpRequestHandler],
})
export class WorkerRoleModule {}
