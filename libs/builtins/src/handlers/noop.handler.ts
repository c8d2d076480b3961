import { JobHandler, type JobHandlerInterface } from '@drover/worker-runtime';

/** Does nothing and succeeds: for heartbeats, smoke tests and benchmarks. */
@JobHandler('noop')
export class NoopHandler implements JobHandlerInterface<unknown, null> {
  handle(): null {
    return null;
  }
}
