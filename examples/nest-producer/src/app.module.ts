import { Module } from '@nestjs/common';
import { DroverModule } from '@drover/client';
import { greetJob } from '../../shared/greet.job';
import { GreeterService } from './greeter.service';
import { sleepJob } from './jobs';
import { NapService } from './nap.service';
import { SETTINGS, settingsFromEnv, type Settings } from './settings';

@Module({ providers: [{ provide: SETTINGS, useFactory: () => settingsFromEnv() }], exports: [SETTINGS] })
class SettingsModule {}

@Module({
  imports: [
    // Configured from the service's own settings, resolved by Nest (forRootAsync).
    DroverModule.forRootAsync({
      imports: [SettingsModule],
      inject: [SETTINGS],
      useFactory: (s: Settings) => ({
        redis: s.redisUrl,
        prefix: s.droverPrefix,
        name: 'nest-producer-example',
        contracts: [sleepJob, greetJob],
      }),
    }),
  ],
  providers: [NapService, GreeterService],
})
export class AppModule {}
