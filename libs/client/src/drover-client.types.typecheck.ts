import { z } from 'zod';
import { defineJob } from '@drover/core';
import type { DroverClient } from './drover-client.service';
import type { DroverRun, RunId } from './drover-run';

const reportsGenerate = defineJob('reports.generate', {
  payload: z.object({ month: z.string(), format: z.enum(['pdf', 'csv']).default('pdf') }),
  result: z.object({ url: z.string() }),
});

/**
 * A type-level test: never run, only compiled. `npm run typecheck` checks these lines, and each
 * `@ts-expect-error` fails the typecheck if the types ever widen (e.g. to `any`) and the mistake
 * below it stops being one. (Not a jest spec: there is nothing to execute.)
 */
export async function typedEndToEnd(client: DroverClient): Promise<void> {
  const id = await client.enqueue(reportsGenerate, { month: '2026-01' });
  const run = await client.waitForRun(id);
  const url: string | undefined = run.result?.url;
  // @ts-expect-error the payload's month is a string
  await client.enqueue(reportsGenerate, { month: 1 });
  // @ts-expect-error format is pdf or csv
  await client.enqueue(reportsGenerate, { month: '2026-01', format: 'xls' });
  // @ts-expect-error the result type travels with the id
  const wrong: number | undefined = (await client.getRun(id))?.result?.url;
  // By name, the payload is checked at runtime only (against a registered contract).
  const byName: RunId = await client.enqueue('reports.generate', { month: '2026-01' });
  // A plain string is a run id too; its result is unknown.
  const plain: DroverRun<unknown> = await client.waitForRun('a-123', { timeoutMs: 1_000 });
  // @ts-expect-error unknown options are refused
  await client.enqueue(reportsGenerate, { month: '2026-01' }, { delay: 5 });
  void [url, wrong, byName, plain];
}
