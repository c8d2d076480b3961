import type { ApiRole } from '@drover/config';

/**
 * The product's route table (the routes docs/api.md documents, "Routes"), as data: the contract test
 * (test/api/contract.e2e-spec.ts) asserts the generated OpenAPI document has every row with its
 * role. Paths are the document's (`/api/v1` prefix, `{param}` templates). Besides method, path and
 * role, a row lists only what the table itself fixes: query parameters, body fields, request
 * headers, answer statuses and headers, and event-stream answers.
 */
export interface SpecRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** The table's minimum role (`DELETE /routines/{name}`: operator; system routines need admin inside). */
  role: ApiRole | 'none';
  query?: string[];
  body?: string[];
  /** Request headers the route reads. */
  headers?: string[];
  /** Answer statuses the table (or issue 12, for the bulk operations) names: each must be documented. */
  statuses?: number[];
  /** Answer headers the table names, on the route's success answer. */
  answerHeaders?: string[];
  /** The success answer is `text/event-stream`. */
  sse?: boolean;
}

const V1 = '/api/v1';

export const SPEC_ROUTES: SpecRoute[] = [
  {
    method: 'GET',
    path: `${V1}/routines`,
    role: 'viewer',
    query: ['queue', 'status', 'include', 'label', 'page_size', 'page_token'],
  },
  { method: 'POST', path: `${V1}/routines`, role: 'operator', statuses: [201, 409] },
  { method: 'GET', path: `${V1}/routines/{name}`, role: 'viewer', answerHeaders: ['ETag'] },
  { method: 'PUT', path: `${V1}/routines/{name}`, role: 'operator', headers: ['If-Match'], statuses: [412] },
  { method: 'PATCH', path: `${V1}/routines/{name}`, role: 'operator', headers: ['If-Match'], statuses: [412] },
  { method: 'DELETE', path: `${V1}/routines/{name}`, role: 'operator' },
  { method: 'POST', path: `${V1}/routines/{name}/pause`, role: 'operator', body: ['note', 'until'], statuses: [409] },
  { method: 'POST', path: `${V1}/routines/{name}/resume`, role: 'operator', statuses: [409] },
  { method: 'POST', path: `${V1}/routines/{name}/archive`, role: 'operator', answerHeaders: ['ETag'] },
  { method: 'POST', path: `${V1}/routines/{name}/unarchive`, role: 'operator', answerHeaders: ['ETag'] },
  { method: 'POST', path: `${V1}/routines/{name}/enable`, role: 'operator' },
  {
    method: 'POST',
    path: `${V1}/routines/{name}/trigger`,
    role: 'operator',
    body: ['payload'],
    headers: ['Idempotency-Key'],
  },
  { method: 'POST', path: `${V1}/routines/{name}/backfill`, role: 'operator', body: ['from', 'to', 'dryRun'] },
  { method: 'POST', path: `${V1}/routines/{name}/overrides`, role: 'operator', body: ['key'], statuses: [201, 409] },
  { method: 'GET', path: `${V1}/routines/{name}/overrides`, role: 'viewer', statuses: [409] },
  { method: 'DELETE', path: `${V1}/routines/{name}/overrides`, role: 'operator', statuses: [409] },
  { method: 'GET', path: `${V1}/routines/{name}/candidates`, role: 'operator', statuses: [409, 503] },
  { method: 'GET', path: `${V1}/routines/{name}/preview`, role: 'viewer', query: ['count', 'from'] },
  { method: 'GET', path: `${V1}/routines/{name}/runs`, role: 'viewer' },
  { method: 'GET', path: `${V1}/routines/{name}/stats`, role: 'viewer', query: ['window'] },
  { method: 'GET', path: `${V1}/routines/{name}/slots`, role: 'viewer', query: ['from', 'to'] },
  { method: 'POST', path: `${V1}/routines/{name}/skip`, role: 'operator', body: ['slot'], statuses: [201, 409, 422] },
  { method: 'GET', path: `${V1}/routines/{name}/skips`, role: 'viewer' },
  { method: 'DELETE', path: `${V1}/routines/{name}/skips/{slot}`, role: 'operator', statuses: [204, 404] },
  { method: 'POST', path: `${V1}/apply`, role: 'admin', query: ['dryRun'] },
  {
    method: 'POST',
    path: `${V1}/jobs`,
    role: 'operator',
    body: ['jobType', 'payload', 'queue', 'runAt', 'delayMs', 'priority', 'maxAttempts'],
    headers: ['Idempotency-Key'],
    // 503: Redis at its memory limit (redis-out-of-memory, with Retry-After), as for every write.
    statuses: [201, 503],
  },
  {
    method: 'GET',
    path: `${V1}/runs`,
    role: 'viewer',
    query: ['queue', 'status', 'routine', 'jobType', 'since', 'until', 'search', 'include'],
  },
  { method: 'GET', path: `${V1}/runs/{id}`, role: 'viewer' },
  { method: 'POST', path: `${V1}/runs/{id}/cancel`, role: 'operator' },
  { method: 'POST', path: `${V1}/runs/{id}/approve`, role: 'operator' },
  { method: 'POST', path: `${V1}/runs/{id}/reject`, role: 'operator' },
  { method: 'GET', path: `${V1}/runs/{id}/events`, role: 'viewer', sse: true },
  { method: 'GET', path: `${V1}/runs/{id}/logs`, role: 'viewer', query: ['from', 'limit'] },
  { method: 'GET', path: `${V1}/runs/{id}/logs/stream`, role: 'viewer', query: ['from'], sse: true },
  {
    method: 'POST',
    path: `${V1}/batches`,
    role: 'operator',
    body: ['runs', 'onComplete', 'onSuccess'],
    statuses: [201],
    answerHeaders: ['Location'],
  },
  { method: 'GET', path: `${V1}/batches`, role: 'viewer', query: ['limit', 'before'] },
  { method: 'GET', path: `${V1}/batches/{id}`, role: 'viewer', query: ['offset', 'limit'], statuses: [404] },
  { method: 'GET', path: `${V1}/batches/{id}/stream`, role: 'viewer', sse: true },
  {
    method: 'POST',
    path: `${V1}/flows`,
    role: 'operator',
    body: ['runs'],
    statuses: [201],
    answerHeaders: ['Location'],
  },
  { method: 'GET', path: `${V1}/queues`, role: 'viewer' },
  { method: 'GET', path: `${V1}/queues/{name}`, role: 'viewer' },
  { method: 'GET', path: `${V1}/queues/{name}/stats`, role: 'viewer', query: ['window'], statuses: [404] },
  { method: 'GET', path: `${V1}/stats`, role: 'viewer', query: ['window'] },
  { method: 'POST', path: `${V1}/queues/{name}/pause`, role: 'operator' },
  { method: 'POST', path: `${V1}/queues/{name}/resume`, role: 'operator' },
  { method: 'GET', path: `${V1}/queues/{name}/parked`, role: 'viewer' },
  { method: 'POST', path: `${V1}/queues/{name}/parked/{id}/replay`, role: 'operator' },
  {
    method: 'POST',
    path: `${V1}/queues/{name}/parked/replay`,
    role: 'operator',
    body: ['filter', 'dryRun'],
    statuses: [202],
  },
  { method: 'DELETE', path: `${V1}/queues/{name}/parked/{id}`, role: 'admin' },
  {
    method: 'POST',
    path: `${V1}/queues/{name}/parked/purge`,
    role: 'admin',
    body: ['filter', 'dryRun'],
    statuses: [202],
  },
  { method: 'GET', path: `${V1}/plan`, role: 'viewer' },
  { method: 'POST', path: `${V1}/plan/what-if`, role: 'viewer', query: ['at', 'slots', 'next'] },
  { method: 'GET', path: `${V1}/cluster`, role: 'viewer' },
  { method: 'GET', path: `${V1}/events`, role: 'viewer', sse: true },
  {
    method: 'GET',
    path: `${V1}/audit`,
    role: 'admin',
    query: ['log', 'token', 'action', 'target', 'from', 'to', 'page_size', 'page_token'],
  },
  { method: 'GET', path: `${V1}/openapi.json`, role: 'none' },
];

/**
 * Operations the document may have beyond the spec table, each with why: a route outside the table
 * is a change of the product contract, so it is added here on purpose, not by accident.
 */
export const EXTRA_ROUTES: { method: SpecRoute['method']; path: string; why: string }[] = [
  {
    method: 'GET',
    path: '/api/v1/operations/{id}',
    why: 'the table says bulk replays answer 202 with an operation id; this reads that operation',
  },
  {
    method: 'POST',
    path: '/api/v1/session',
    why: 'the web console (docs/console.md) logs in with a token for a cookie',
  },
  {
    method: 'GET',
    path: '/api/v1/session',
    why: 'the web console shows who is logged in and hides what the role may not do',
  },
  { method: 'DELETE', path: '/api/v1/session', why: 'the web console logs out' },
];
