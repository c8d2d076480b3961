import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { DroverRun } from '@drover/client';
import { AppModule } from './app.module';
import { GreeterService } from './greeter.service';
import { NapService } from './nap.service';

/**
 * `main.js`: enqueues one `sleep` run (Drover's shipped worker runs it), waits for it and prints its result.
 * `main.js greet <name>`: enqueues an `example.greet` run (examples/nest-worker runs it) and prints the greeting.
 * Exits 0 if the run succeeded.
 */
async function main(argv: string[]): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });
  try {
    if (argv[0] === 'greet') {
      const run = await app.get(GreeterService).greet(argv[1] ?? 'world');
      // The result is typed by the shared contract (examples/shared/greet.job.ts).
      if (succeeded(run)) console.log(`greeting: ${run.result?.text} (by ${run.result?.by})`);
    } else {
      const run = await app.get(NapService).nap(150);
      const sleptMs: number | undefined = run.result?.sleptMs;
      if (succeeded(run)) console.log(`result: ${JSON.stringify(run.result)} (slept ${sleptMs} ms)`);
    }
  } finally {
    await app.close(); // closes Drover's Redis connections
  }
}

function succeeded(run: DroverRun<unknown>): boolean {
  console.log(`run ${run.id} ${run.status} after ${run.attempt} attempt(s)`);
  if (run.status === 'succeeded') return true;
  console.error(`run ${run.id} did not succeed: ${run.error?.message ?? run.reason ?? run.status}`);
  process.exitCode = 1;
  return false;
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
