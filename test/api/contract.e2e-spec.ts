import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { offlineApiDocument } from '../../scripts/openapi/api-document';
import { operationsOf, propertyNames, type OasDocument } from './support/openapi';
import { EXTRA_ROUTES, SPEC_ROUTES, type SpecRoute } from './spec-routes';

/**
 * The product contract against the document generated from the code: every row of the spec's
 * route table (test/api/spec-routes.ts) is there with its role and what the table fixes, and
 * nothing else is. Builds the document offline (no processes), so it names each missing route
 * in one run. Serving that same document is checked by fuzz.e2e-spec.ts.
 */
const doc = offlineApiDocument() as unknown as OasDocument;
const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

function problemsOf(row: SpecRoute): string[] {
  const op = doc.paths[row.path]?.[row.method.toLowerCase()];
  if (!op) return [`${key(row)} is not in the OpenAPI document (no route declares it)`];
  const out: string[] = [];
  if (op['x-drover-role'] !== row.role) {
    out.push(`x-drover-role is ${JSON.stringify(op['x-drover-role'])}, the spec says ${row.role}`);
  }
  const params = op.parameters ?? [];
  const query = new Set(params.filter((p) => p.in === 'query').map((p) => p.name));
  const missingQuery = (row.query ?? []).filter((q) => !query.has(q));
  if (missingQuery.length) out.push(`query parameters missing: ${missingQuery.join(', ')}`);
  const headers = new Set(params.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()));
  const missingHeaders = (row.headers ?? []).filter((h) => !headers.has(h.toLowerCase()));
  if (missingHeaders.length) out.push(`request headers missing: ${missingHeaders.join(', ')}`);
  if (row.body) {
    const schema = op.requestBody?.content['application/json']?.schema;
    const fields = propertyNames(doc, schema);
    const missing = row.body.filter((f) => !fields.has(f));
    if (!schema) out.push('no application/json request body');
    else if (missing.length) out.push(`body fields missing: ${missing.join(', ')}`);
  }
  const statuses = (row.statuses ?? []).filter((s) => !op.responses[String(s)]);
  if (statuses.length) out.push(`answer statuses not documented: ${statuses.join(', ')}`);
  const success = Object.entries(op.responses)
    .filter(([code]) => code.startsWith('2'))
    .map(([, r]) => r);
  for (const h of row.answerHeaders ?? []) {
    const has = success.some((r) => Object.keys(r.headers ?? {}).some((n) => n.toLowerCase() === h.toLowerCase()));
    if (!has) out.push(`answer header ${h} not documented on a 2xx answer`);
  }
  if (row.sse && !success.some((r) => r.content?.['text/event-stream'])) {
    out.push('the 2xx answer is not documented as text/event-stream');
  }
  return out;
}

describe('API contract: the route table of docs/api.md is in the generated OpenAPI document', () => {
  it('has every row of the table (summary of what is missing)', () => {
    const missing = SPEC_ROUTES.filter((r) => problemsOf(r).length > 0).map(
      (r) => `  ${key(r)} (${r.role}): ${problemsOf(r).join('; ')}`,
    );
    if (missing.length) {
      throw new Error(
        `${missing.length} of ${SPEC_ROUTES.length} spec routes are missing or differ:\n${missing.join('\n')}`,
      );
    }
  });

  it.each(SPEC_ROUTES.map((r) => [key(r), r] as const))('%s', (_name, row) => {
    expect(problemsOf(row)).toEqual([]);
  });

  it('documents no route outside the table unless EXTRA_ROUTES lists it with a reason', () => {
    const known = new Set([...SPEC_ROUTES, ...EXTRA_ROUTES].map(key));
    const extra = operationsOf(doc)
      .map(key)
      .filter((k) => !known.has(k));
    expect(extra).toEqual([]);
  });

  it('is the committed libs/api-client/openapi.json (else run `npm run openapi`)', () => {
    const committed = JSON.parse(
      readFileSync(join(__dirname, '../../libs/api-client/openapi.json'), 'utf8'),
    ) as unknown;
    expect(committed).toEqual(doc);
  });
});
