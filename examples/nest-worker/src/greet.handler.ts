import { setTimeout as sleep } from 'node:timers/promises';
import { JobHandler, type JobContext, type JobHandlerInterface, type PayloadOf, type ResultOf } from '@drover/worker';
import { greetJob } from '../../shared/greet.job';

/** Handles the job examples/nest-producer enqueues; payload and result are typed by the shared contract. */
@JobHandler(greetJob)
export class GreetHandler implements JobHandlerInterface<PayloadOf<typeof greetJob>, ResultOf<typeof greetJob>> {
  async handle({ name, takeMs }: PayloadOf<typeof greetJob>, ctx: JobContext): Promise<ResultOf<typeof greetJob>> {
    ctx.log.info({ name, routine: ctx.run.routine }, 'greeting');
    if (takeMs > 0) await sleep(takeMs, undefined, { signal: ctx.signal }); // stops when the run is aborted
    return { text: `Hello, ${name}!`, by: 'nest-worker' };
  }
}
