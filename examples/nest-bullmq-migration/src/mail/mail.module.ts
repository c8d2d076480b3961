import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { MailProcessor } from './mail.processor';
import { MailProducer } from './mail.producer';

/** The same module both ways: it knows nothing of Drover. */
@Module({
  imports: [BullModule.registerQueue({ name: 'mail' })],
  providers: [MailProcessor, MailProducer],
  exports: [MailProducer],
})
export class MailModule {}
