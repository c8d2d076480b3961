import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import type { MailData } from './mail.processor';

@Injectable()
export class MailProducer {
  constructor(@InjectQueue('mail') readonly queue: Queue<MailData>) {}

  send(name: string, to: string): Promise<Job<MailData>> {
    return this.queue.add(name, { to });
  }
}
