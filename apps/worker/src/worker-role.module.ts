import { Module } from '@nestjs/common';
import { WorkerRuntimeModule } from '@drover/worker-runtime';
import { HttpRequestHandler } from './handlers/http-request.handler';
import { NoopHandler } from './handlers/noop.handler';
import { SleepHandler } from './handlers/sleep.handler';
import { droverVersion } from './version';

/** The worker role with Drover's built-in handlers; the worker and standalone apps import it. */
@Module({
  imports: [WorkerRuntimeModule.forRoot({ version: droverVersion() })],
  providers: [NoopHandler, SleepHandler, HttpRequestHandler],
})
export class WorkerRoleModule {}
