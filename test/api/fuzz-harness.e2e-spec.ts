import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type INestApplication, Module } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { NestFactory } from '@nestjs/core';
import { stringify } from 'yaml';
import { ApiModule, configureApiHttp } from '@drover/api';
import { loadAppConfig, type ApiRole } from '@drover/config';
import { createLogger } from '@drover/logger';
import { PlatformModule } from '@drover/platform';
import { testRedisUrl, uniquePrefix } from '@drover/testing';
import { buildOpenApiDocument, routesOf } from '../../libs/api/src/openapi/openapi-document';
import { AnswerChecker } from './support/fuzz/answer-check';
import { fuzzBodies, fuzzOperation, type FuzzTarget } from './support/fuzz/fuzz-api';
import { FuzzTargetController } from './support/fuzz/fuzz-target.controller';
import { operationsOf, type FoundOperation, type OasDocument } from './support/openapi';

/** The api's own module (guards, validation, audit, problem answers) with the test-only routes added. */
const meta = (key: string) => Reflect.getMetadata(key, ApiModule) as never[];
@Module({
  imports: meta(MODULE_METADATA.IMPORTS),
  controllers: [...meta(MODULE_METADATA.CONTROLLERS), FuzzTargetController],
  providers: meta(MODULE_METADATA.PROVIDERS),
})
class FuzzTargetApiModule {}

/**
 * The fuzzer's own test: in-process, the real api stack plus planted bugs. It must pass the
 * honest routes (and get valid calls past validation to the handler) and find each bug with a
 * report that says what broke and how to reproduce it. Without this, a fuzzer that checks
 * nothing would look the same as one that finds nothing.
 */
describe('the OpenAPI fuzzer (test/api/support/fuzz) against planted bugs', () => {
  let app: INestApplication;
  let target: FuzzTarget;
  let checker: AnswerChecker;
  const settings = { seed: 7, runs: 40 };
  const op = (id: string): FoundOperation => {
    const found = operationsOf(target.doc).find((o) => o.op.operationId === id);
    if (!found) throw new Error(`no operation ${id}`);
    return found;
  };

  beforeAll(async () => {
    const tokens = Object.fromEntries(
      (['viewer', 'operator', 'admin'] as const).map((r) => [r, `${r}-${randomBytes(8).toString('hex')}`]),
    ) as Record<ApiRole, string>;
    const file = join(mkdtempSync(join(tmpdir(), 'drover-fuzz-')), 'tokens.yaml');
    const entries = Object.entries(tokens).map(([role, token]) => ({
      name: `${role}-token`,
      role,
      sha256: createHash('sha256').update(token).digest('hex'),
    }));
    writeFileSync(file, stringify({ tokens: entries }));
    const config = loadAppConfig(
      'api',
      { port: 0 },
      {
        REDIS_URL: testRedisUrl(),
        DROVER_PREFIX: uniquePrefix('fuzz-harness'),
        DROVER_INSTANCE_ID: 'fuzz-harness',
        DROVER_API_TOKENS_FILE: file,
        DROVER_API_RATE_LIMIT: '0',
      },
    );
    const logger = createLogger({ app: 'api', instanceId: 'fuzz-harness', level: 'fatal', format: 'json' });
    app = await NestFactory.create(
      { module: FuzzTargetApiModule, imports: [PlatformModule.forRoot(config, logger), FuzzTargetApiModule] },
      { logger: false, bodyParser: false },
    );
    configureApiHttp(app);
    await app.listen(0, '127.0.0.1');
    const doc = buildOpenApiDocument(routesOf([FuzzTargetController]), { version: 'test' }) as unknown as OasDocument;
    target = { baseUrl: await app.getUrl(), doc, tokens, names: ['thing-1', 'missing'], callTimeoutMs: 2_000 };
    checker = new AnswerChecker(doc);
  }, 30_000);

  afterAll(() => app?.close(), 30_000);

  it('passes an honest mutating route, reaching its handler with valid calls and its 400s with bad ones', async () => {
    const result = await fuzzOperation(target, checker, op('fuzzPutThing'), settings);
    expect(result.failure).toBeUndefined();
    expect(result.statuses).toMatchObject({ 200: expect.any(Number), 400: expect.any(Number) });
    const bodies = await fuzzBodies(target, checker, op('fuzzPutThing'), settings);
    expect(bodies.failure).toBeUndefined();
  });

  it('passes an event stream without waiting for it to end', async () => {
    const result = await fuzzOperation(target, checker, op('fuzzStream'), settings);
    expect(result.failure).toBeUndefined();
    expect(result.statuses[200]).toBeGreaterThan(0);
  });

  it('finds a 5xx, from generated calls and from random bodies alike', async () => {
    const result = await fuzzOperation(target, checker, op('fuzzCrash'), settings);
    expect(result.failure).toContain('answered 500: no input may produce a 5xx');
    expect(result.failure).toContain('POST /api/v1/fuzz-target/crash (fuzzCrash) broke the contract');
    expect(result.failure).toContain('reproduce: DROVER_FUZZ_SEED=7 DROVER_FUZZ_RUNS=40');
    const bodies = await fuzzBodies(target, checker, op('fuzzCrash'), settings);
    expect(bodies.failure).toContain('answered 500');
  });

  it('finds an answer that does not match its schema', async () => {
    const result = await fuzzOperation(target, checker, op('fuzzLiar'), settings);
    expect(result.failure).toContain('the 200 body does not match its schema: /count must be number');
  });

  it('ends a call that never answers and reports it', async () => {
    const result = await fuzzOperation(target, checker, op('fuzzSilent'), settings);
    expect(result.failure).toContain('the call failed: no answer within 2000 ms');
  });

  it('finds a status the operation does not document', async () => {
    const result = await fuzzOperation(target, checker, op('fuzzUndocumented'), settings);
    expect(result.failure).toContain(
      'status 409 is not documented (documented: 204, 400, 401, 403, 404, 429, 500, 503)',
    );
  });
});
