import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { NapService } from './nap.service';

/** Enqueues one `sleep` run, waits for it, prints its result and exits 0 if it succeeded. */
async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });
  try {
    const run = await app.get(NapService).nap(150);
    console.log(`run ${run.id} ${run.status} after ${run.attempt} attempt(s)`);
    if (run.status !== 'succeeded') {
      console.error(`run ${run.id} did not succeed: ${run.error?.message ?? run.reason ?? run.status}`);
      process.exitCode = 1;
      return;
    }
    const sleptMs: number | undefined = run.result?.sleptMs;
    console.log(`result: ${JSON.stringify(run.result)} (slept ${sleptMs} ms)`);
  } finally {
    await app.close(); // closes Drover's Redis connections
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
