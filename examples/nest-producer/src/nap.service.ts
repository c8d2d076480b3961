import { Injectable } from '@nestjs/common';
import { DroverClient, type DroverRun } from '@drover/client';
import { sleepJob } from './jobs';

/** A piece of the team's service that hands work to Drover and waits for the answer. */
@Injectable()
export class NapService {
  constructor(private readonly drover: DroverClient) {}

  /** Enqueues a `sleep` run and waits for it to end; the result is typed by the contract. */
  async nap(ms: number): Promise<DroverRun<{ sleptMs: number }>> {
    const id = await this.drover.enqueue(sleepJob, { ms }, { idempotencyKey: `nap:${process.pid}:${ms}` });
    return this.drover.waitForRun(id, { timeoutMs: 30_000 });
  }
}
