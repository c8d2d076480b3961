import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DroverClient } from '@drover/client';
import { parseBundle } from '@drover/core';
import { SystemClock } from '@drover/redis';
import { offlineApiDocument } from '../../scripts/openapi/api-document';
import { ApiCluster } from './support/api-cluster';
import { AnswerChecker } from './support/fuzz/answer-check';
import { fuzzBodies, fuzzOperation, fuzzSettings, mutatingOperations, type FuzzTarget } from './support/fuzz/fuzz-api';
import { operationsOf, type OasDocument } from './support/openapi';

/**
 * Fuzzes the live api from its own OpenAPI document, the way Schemathesis would (it cannot be
 * installed here: docs/api/contract.md): for every operation, calls generated from the document
 * (valid-looking values, wrong types, junk path segments, random JSON) must get a documented
 * status, a body valid against its schema, problem+json for errors and never a 5xx. Then random
 * JSON bodies at every mutating route. Seeded: DROVER_FUZZ_SEED / DROVER_FUZZ_RUNS vary it.
 */
const expected = offlineApiDocument() as unknown as OasDocument;
const settings = fuzzSettings();

describe(`api fuzzing from the OpenAPI document (seed ${settings.seed}, ${settings.runs} cases per operation)`, () => {
  let api: ApiCluster;
  let target: FuzzTarget;
  let checker: AnswerChecker;

  beforeAll(async () => {
    api = await ApiCluster.start('api-fuzz', { scheduler: false, worker: false, rateLimitPerMinute: 0 });
    const bundle = parseBundle({
      queues: [{ name: 'default' }],
      routines: [
        {
          name: 'fuzz-nightly',
          jobType: 'noop',
          queue: 'default',
          trigger: { kind: 'cron', cron: '0 2 * * *', tz: 'Europe/Berlin' },
        },
      ],
    });
    if (!bundle.ok) throw new Error(bundle.errors.join('; '));
    await api.cluster.registry.put(bundle.bundle.queues);
    await api.cluster.routines.upsert(bundle.bundle.routines[0]!, 'api', Date.now());
    const client = new DroverClient(
      {
        runs: api.cluster.runs,
        routines: api.cluster.routines,
        registry: api.cluster.registry,
        clock: new SystemClock(),
      },
      { defaultQueue: 'default', name: 'fuzz', contracts: new Map(), strictJobTypes: false },
    );
    const runId = await client.enqueue('noop', {});
    const served = await api.call<OasDocument>('GET', '/openapi.json', { as: 'none' });
    target = {
      baseUrl: api.api.baseUrl,
      doc: served.body,
      tokens: api.tokens,
      names: ['default', 'fuzz-nightly', runId],
    };
    checker = new AnswerChecker(served.body);
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  it('serves the document `npm run openapi` exports (libs/api-client/openapi.json)', () => {
    expect(target.doc).toEqual(expected);
    const committed = JSON.parse(
      readFileSync(join(__dirname, '../../libs/api-client/openapi.json'), 'utf8'),
    ) as unknown;
    expect(target.doc).toEqual(committed);
  });

  it('documents every routines route in the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/openapi.json', { as: 'none' })).body;
    const ops = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((p) =>
      Object.values(p).map((o) => o.operationId),
    );
    expect(ops).toEqual(
      expect.arrayContaining([
        'listRoutines',
        'createRoutine',
        'getRoutine',
        'putRoutine',
        'patchRoutine',
        'deleteRoutine',
        'pauseRoutine',
        'resumeRoutine',
        'triggerRoutine',
        'backfillRoutine',
        'previewRoutine',
        'listRoutineRuns',
        'routineStats',
        'applyPolicy',
      ]),
    );
    expect(doc.components.schemas.Routine.properties.definition).toEqual({
      $ref: '#/components/schemas/RoutineDefinition',
    });
  });

  it.each(operationsOf(expected).map((o) => [`${o.method} ${o.path}`, o] as const))(
    '%s keeps its documented contract for generated calls',
    async (_name, found) => {
      const result = await fuzzOperation(target, checker, found, settings);
      if (result.failure) throw new Error(result.failure);
      // Some calls must get past auth, or the fuzzer only ever met the guard.
      expect(Object.keys(result.statuses).some((s) => s !== '401' && s !== '403')).toBe(true);
    },
    120_000,
  );

  it('never answers a 5xx to random JSON bodies at any mutating route', async () => {
    const failures: string[] = [];
    for (const found of mutatingOperations(expected)) {
      const result = await fuzzBodies(target, checker, found, settings);
      if (result.failure) failures.push(result.failure);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
