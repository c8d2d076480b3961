import fc from 'fast-check';
import type { ApiRole } from '@drover/config';
import { isMutatingMethod, operationsOf, type FoundOperation, type OasDocument } from '../openapi';
import { type AnswerChecker, type FuzzAnswer } from './answer-check';
import { randomBodiesFor, requestsFor, type FuzzRequest } from './requests';

/** The seed and case count of a run: fixed by default, so CI is repeatable; the env varies them. */
export function fuzzSettings(env = process.env): { seed: number; runs: number } {
  return {
    seed: Number(env.DROVER_FUZZ_SEED ?? 20_261_122) >>> 0,
    runs: Math.max(1, Number(env.DROVER_FUZZ_RUNS ?? 40)),
  };
}

export interface FuzzTarget {
  /** The api's root URL (paths in the document start at /api/v1). */
  baseUrl: string;
  doc: OasDocument;
  tokens: Record<ApiRole, string>;
  /** Names that exist (routines, queues, runs): path parameters come from these half the time. */
  names: string[];
  /** How long one call may take to answer (its head, for an event stream); default 10 s. */
  callTimeoutMs?: number;
}

export interface FuzzResult {
  /** How many answers had each status: shows the cases reached past validation too. */
  statuses: Record<number, number>;
  failure?: string;
}

/** A per-operation seed, so adding a route leaves every other operation's cases as they were. */
function seedOf(base: number, operationId: string): number {
  let h = base;
  for (const c of operationId) h = Math.imul(h ^ c.charCodeAt(0), 16_777_619) >>> 0;
  return h;
}

const isEventStream = (found: FoundOperation) =>
  Object.entries(found.op.responses).some(([code, r]) => code.startsWith('2') && r.content?.['text/event-stream']);

async function send(target: FuzzTarget, found: FoundOperation, req: FuzzRequest): Promise<FuzzAnswer> {
  const headers: Record<string, string> = { ...req.headers };
  if (req.as !== 'none') headers.authorization = `Bearer ${target.tokens[req.as]}`;
  if (req.contentType) headers['content-type'] = req.contentType;
  const abort = new AbortController();
  // A hung call (an event stream that never sends its head) fails the case instead of the suite's timeout.
  const ms = target.callTimeoutMs ?? 10_000;
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${ms} ms`)), ms);
  try {
    const res = await fetch(`${target.baseUrl}${req.url}`, {
      method: req.method,
      headers,
      body: req.body,
      signal: abort.signal,
    });
    const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (contentType === 'text/event-stream' && isEventStream(found)) {
      abort.abort(); // an event stream may never end: its status and type are what is checked
      return { status: res.status, contentType, text: '' };
    }
    return { status: res.status, contentType, text: await res.text() };
  } finally {
    clearTimeout(timer);
  }
}

function describeFailure(
  found: FoundOperation,
  req: FuzzRequest,
  answer: FuzzAnswer | undefined,
  problems: string[],
): string {
  const body =
    req.body === undefined
      ? ''
      : req.body.length > 300
        ? `${req.body.slice(0, 300)}… (${req.body.length} chars)`
        : req.body;
  return [
    `${found.method} ${found.path} (${found.op.operationId}) broke the contract:`,
    ...problems.map((p) => `  - ${p}`),
    `request: ${req.method} ${req.url.length > 300 ? `${req.url.slice(0, 300)}…` : req.url} as ${req.as}`,
    ...(Object.keys(req.headers).length ? [`headers: ${JSON.stringify(req.headers)}`] : []),
    ...(req.contentType ? [`body (${req.contentType}): ${body}`] : []),
    ...(answer ? [`answer: ${answer.status} ${answer.contentType} ${answer.text.slice(0, 500)}`] : []),
  ].join('\n');
}

async function run(
  target: FuzzTarget,
  checker: AnswerChecker,
  found: FoundOperation,
  requests: fc.Arbitrary<FuzzRequest>,
  settings: { seed: number; runs: number },
): Promise<FuzzResult> {
  const statuses: Record<number, number> = {};
  let failure: string | undefined;
  const seed = seedOf(settings.seed, found.op.operationId);
  const result = await fc.check(
    fc.asyncProperty(requests, async (req) => {
      let answer: FuzzAnswer | undefined;
      let problems: string[];
      try {
        answer = await send(target, found, req);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        problems = checker.check(found, answer);
      } catch (err) {
        const e = err as Error;
        problems = [`the call failed: ${e.message}${e.cause ? ` (${String(e.cause)})` : ''}`];
      }
      if (problems.length === 0) return true;
      failure ??= describeFailure(found, req, answer, problems);
      return false;
    }),
    // No shrinking: each case is an HTTP call, and the first failing one is reported whole.
    { seed, numRuns: settings.runs, endOnFailure: true },
  );
  if (result.failed && !failure) failure = `${found.op.operationId}: ${String(result.errorInstance ?? 'failed')}`;
  return {
    statuses,
    ...(failure && {
      failure: `${failure}\nreproduce: DROVER_FUZZ_SEED=${settings.seed} DROVER_FUZZ_RUNS=${settings.runs}`,
    }),
  };
}

/**
 * Fuzzes one operation from the document (Schemathesis-style): generated calls, each answer
 * judged by {@link AnswerChecker}. Resolves with the first broken answer described, or none.
 */
export function fuzzOperation(
  target: FuzzTarget,
  checker: AnswerChecker,
  found: FoundOperation,
  settings = fuzzSettings(),
): Promise<FuzzResult> {
  return run(target, checker, found, requestsFor(target.doc, found, target.names), settings);
}

/** Random JSON bodies at a mutating operation (valid path parameters, admin token). */
export function fuzzBodies(
  target: FuzzTarget,
  checker: AnswerChecker,
  found: FoundOperation,
  settings = fuzzSettings(),
): Promise<FuzzResult> {
  return run(target, checker, found, randomBodiesFor(found, target.names), settings);
}

export const mutatingOperations = (doc: OasDocument) => operationsOf(doc).filter((o) => isMutatingMethod(o.method));
