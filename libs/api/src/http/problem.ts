import type { DroverErrorCode } from '@drover/core';

/** One invalid field of a request: where (`body.trigger.cron`, `query.page_size`) and what is wrong. */
export interface FieldError {
  path: string;
  message: string;
}

/** An RFC 9457 problem document, the body of every API error (docs/api.md). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The code of the Drover error the answer is (docs/errors.md); absent for other answers. */
  code?: DroverErrorCode;
  errors?: FieldError[];
}

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  428: 'Precondition required',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
};

const SLUGS: Record<number, string> = {
  400: 'invalid-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  412: 'precondition-failed',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  428: 'precondition-required',
  429: 'too-many-requests',
  500: 'internal-error',
  503: 'unavailable',
};

/** Problem `type` URIs are stable names (documented in docs/api.md), not fetchable pages. */
export const problemType = (status: number): string => `urn:drover:problem:${SLUGS[status] ?? String(status)}`;

export function problem(status: number, detail: string, errors?: FieldError[], code?: DroverErrorCode): Problem {
  return {
    type: problemType(status),
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...(code && { code }),
    ...(errors && errors.length > 0 && { errors }),
  };
}

/** Thrown by handlers to answer with a problem document; anything else unexpected is a 500. */
export class ProblemError extends Error {
  readonly problem: Problem;
  constructor(
    status: number,
    detail: string,
    errors?: FieldError[],
    /** Extra response headers, e.g. `Retry-After`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
    this.problem = problem(status, detail, errors);
  }
}
