// The app after the switch: Drover's platform and DroverBullModule take the place of BullModule.forRoot
// (docs/migrating-from-bullmq.md shows the diff). MailModule, its processor and its producer are unchanged.
// Configured by Drover's environment variables: REDIS_URL, DROVER_PREFIX=bull (the prefix BullMQ used),
// DROVER_CONFIG, PORT.
import { type DynamicModule, Module } from '@nestjs/common';
import { DroverBullModule, PlatformModule, runApp, type AppConfig, type Logger } from '@drover/worker';
import { MailModule } from './mail/mail.module';

@Module({})
class AppModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [PlatformModule.forRoot(config, logger), DroverBullModule.forRoot({ version: '0.0.0' }), MailModule],
    };
  }
}

void runApp({ name: 'mail-worker', defaultPort: 3020, module: AppModule.forRoot });
