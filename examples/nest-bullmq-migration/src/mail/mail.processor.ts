import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';

export interface MailData {
  to: string;
}

/** Sends mail. `bounce` jobs always fail (a full mailbox), to show retries. */
@Processor('mail', { concurrency: 5 })
export class MailProcessor extends WorkerHost {
  private readonly log = new Logger(MailProcessor.name);

  async process(job: Job<MailData>): Promise<{ sent: string }> {
    await job.updateProgress(50);
    await job.log(`sending ${job.name} to ${job.data.to}`);
    if (job.name === 'bounce') throw new Error(`mailbox of ${job.data.to} is full`);
    return { sent: job.data.to };
  }

  @OnWorkerEvent('completed')
  onCompleted(job: Job<MailData>): void {
    this.log.log(`completed ${job.name} ${job.id} for ${job.data.to}`);
  }
}
