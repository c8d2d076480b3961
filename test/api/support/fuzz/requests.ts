import fc from 'fast-check';
import type { ApiRole } from '@drover/config';
import type { FoundOperation, JsonSchema, OasDocument, OasParameter } from '../openapi';
import { randomJson, schemaValue, withWrongField } from './schema-values';

/** One generated call, as sent: the path already has its segments encoded (or deliberately not). */
export interface FuzzRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/routines/a%2Fb?page_size=0`. */
  url: string;
  as: ApiRole | 'none';
  headers: Record<string, string>;
  body?: string;
  contentType?: string;
}

/**
 * Path segments that are already URL-encoded junk: bad escapes, control bytes, huge ones. Not dot
 * segments or empty ones: the client resolves those away (WHATWG URL), so the server would see
 * another route's path (`/queues/.` is `/queues/`) and the answer be checked against the wrong operation.
 */
const RAW_SEGMENTS = [
  '%',
  '%%',
  '%zz',
  '%00',
  '%0A',
  '%2F',
  '%E0%A4%A',
  '%C0%AF',
  'a%20b',
  encodeURIComponent('ü🙂名前'),
  '__proto__',
  'constructor',
  'x'.repeat(2_000),
];

/** Header values fetch can send (visible ASCII). */
const headerText = fc.stringMatching(/^[\x21-\x7e]{1,40}$/);

function queryText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
}

function pathSegment(doc: OasDocument, p: OasParameter, names: string[]): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 4, arbitrary: names.length ? fc.constantFrom(...names).map(encodeURIComponent) : fc.constant('x') },
      { weight: 2, arbitrary: schemaValue(doc, p.schema).map((v) => encodeURIComponent(queryText(v))) },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
      { weight: 2, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    )
    .filter((segment) => !DOT_OR_EMPTY.test(segment));
}

/** What the client resolves away (see RAW_SEGMENTS): '', '.', '..' and their %2e spellings. */
const DOT_OR_EMPTY = /^(?:|\.|%2e|\.\.|\.%2e|%2e\.|%2e%2e)$/i;

function queryOf(doc: OasDocument, params: OasParameter[]): fc.Arbitrary<string> {
  const valid = fc.record(Object.fromEntries(params.map((p) => [p.name, schemaValue(doc, p.schema)])), {
    requiredKeys: [],
  });
  // Not randomJson's huge strings: a request line over Node's 16 KiB header limit gets Node's
  // bare 431 before the app sees it (docs/api/contract.md).
  const junk = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.jsonValue({ maxDepth: 2 }));
  const wrong = fc.record(Object.fromEntries(params.map((p) => [p.name, junk])), { requiredKeys: [] });
  const extra = fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 2 });
  return fc
    .tuple(
      fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: wrong }),
      fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra }),
      fc.boolean(),
    )
    .map(([values, extras, repeat]) => {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries({ ...values, ...extras })) {
        for (const item of Array.isArray(v) ? v : [v]) q.append(k, queryText(item));
        if (repeat) q.append(k, queryText(v)); // the same name twice: an array where one value is expected
      }
      return q.toString();
    });
}

interface Body {
  body?: string;
  contentType?: string;
}

function bodyOf(doc: OasDocument, found: FoundOperation): fc.Arbitrary<Body> {
  const content = found.op.requestBody?.content ?? {};
  const jsonTypes = Object.keys(content).filter((t) => t.includes('json'));
  const otherTypes = Object.keys(content).filter((t) => !t.includes('json'));
  const schema: JsonSchema | undefined = jsonTypes.length ? content[jsonTypes[0]!]?.schema : undefined;
  const asJson = (value: fc.Arbitrary<unknown>): fc.Arbitrary<Body> =>
    fc
      .tuple(value, fc.constantFrom(...(jsonTypes.length ? jsonTypes : ['application/json'])))
      .map(([v, contentType]) => ({ body: JSON.stringify(v) ?? 'null', contentType }));
  const options: { weight: number; arbitrary: fc.Arbitrary<Body> }[] = [
    { weight: 3, arbitrary: asJson(randomJson) },
    { weight: 1, arbitrary: fc.constantFrom<Body>({}, { body: '{"open": ', contentType: 'application/json' }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((body) => ({ body, contentType: 'text/plain' })) },
  ];
  if (found.op.requestBody) {
    // Just over the 1 MiB limit: a 413 problem, never a parser crash.
    options.push({ weight: 1, arbitrary: asJson(fc.constant('x'.repeat(1024 * 1024 + 1))) });
  }
  if (schema) {
    options.push({ weight: 4, arbitrary: asJson(schemaValue(doc, schema)) });
    options.push({ weight: 3, arbitrary: asJson(withWrongField(doc, schema)) });
  }
  for (const contentType of otherTypes) {
    options.push({
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.string({ unit: 'grapheme', maxLength: 200 }),
          fc.constantFrom('queues: [', 'a: b\n', '- 1\n- 2', '{}'),
        )
        .map((body) => ({ body, contentType })),
    });
  }
  return fc.oneof(...options);
}

/** Calls generated from an operation of the document: valid-looking values, wrong types and junk everywhere. */
export function requestsFor(doc: OasDocument, found: FoundOperation, names: string[]): fc.Arbitrary<FuzzRequest> {
  const params = found.op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const headerParams = params.filter((p) => p.in === 'header');
  // A body where none is documented should be ignored or refused; fetch sends none with a GET.
  const body: fc.Arbitrary<Body> = found.op.requestBody
    ? bodyOf(doc, found)
    : found.method === 'GET'
      ? fc.constant({})
      : fc.oneof({ weight: 5, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: bodyOf(doc, found) });
  return fc
    .record({
      segments: fc.tuple(...pathParams.map((p) => pathSegment(doc, p, names))),
      query: queryOf(
        doc,
        params.filter((p) => p.in === 'query'),
      ),
      headers: fc.record(Object.fromEntries(headerParams.map((p) => [p.name, headerText])), { requiredKeys: [] }),
      body,
      as: fc.oneof(
        { weight: 8, arbitrary: fc.constant<ApiRole | 'none'>('admin') },
        { weight: 1, arbitrary: fc.constantFrom<ApiRole | 'none'>('viewer', 'operator', 'none') },
      ),
    })
    .map(({ segments, query, headers, body, as }) => {
      let i = 0;
      const path = found.path.replace(/\{[^}]+\}/g, () => segments[i++] ?? 'x');
      const sent = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
      return { method: found.method, url: query ? `${path}?${query}` : path, as, headers: sent, ...body };
    });
}

/** Random JSON (and only that) as the body of a mutating route: the property test. */
export function randomBodiesFor(found: FoundOperation, names: string[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      fc.tuple(...[...found.path.matchAll(/\{[^}]+\}/g)].map(() => fc.constantFrom(...(names.length ? names : ['x'])))),
      randomJson,
    )
    .map(([segments, value]) => {
      let i = 0;
      const url = found.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(segments[i++] ?? 'x'));
      return {
        method: found.method,
        url,
        as: 'admin' as const,
        headers: {},
        body: JSON.stringify(value) ?? 'null',
        contentType: 'application/json',
      };
    });
}
