import { Injectable } from '@nestjs/common';
import { DroverClient, type DroverRun } from '@drover/client';
import { greetJob } from '../../shared/greet.job';

/** Hands a greeting to the team's own worker (examples/nest-worker) through the shared contract. */
@Injectable()
export class GreeterService {
  constructor(private readonly drover: DroverClient) {}

  async greet(name: string): Promise<DroverRun<{ text: string; by: string }>> {
    const id = await this.drover.enqueue(greetJob, { name }); // queue `greetings`, from the contract
    return this.drover.waitForRun(id, { timeoutMs: 30_000 });
  }
}
