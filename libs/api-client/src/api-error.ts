import type { components } from './schema';

/** An RFC 9457 problem document: the body of every error the Drover API answers (docs/api.md). */
export type Problem = components['schemas']['Problem'];

function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) return false;
  const p = body as Record<string, unknown>;
  return typeof p.type === 'string' && typeof p.title === 'string' && typeof p.status === 'number';
}

/**
 * A non-2xx answer of the API. `problem` is the server's problem document, or one made up from
 * the status when something in between (a proxy, a gateway) answered with something else.
 */
export class DroverApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
    /** The request's method and URL, for messages. */
    readonly request: string,
  ) {
    super(`${request}: ${status} ${problem.detail || problem.title}`);
    this.name = 'DroverApiError';
  }

  /**
   * The stable code of the Drover error the server answered with (`'routine-not-found'`, …; see
   * docs/errors.md), to tell refusals apart without reading the detail; undefined for other answers.
   */
  get code(): Problem['code'] {
    return this.problem.code;
  }

  /** The invalid fields of a 400, `[{path: 'body.trigger.cron', message}]`; empty otherwise. */
  get fieldErrors(): NonNullable<Problem['errors']> {
    return this.problem.errors ?? [];
  }

  static async fromResponse(request: Request, response: Response): Promise<DroverApiError> {
    const text = await response.clone().text();
    return DroverApiError.fromAnswer(
      `${request.method} ${new URL(request.url).pathname}`,
      response.status,
      response.statusText,
      text,
    );
  }

  /** `request` is the method and path (`GET /api/v1/queues`); `text` the answer's body. */
  static fromAnswer(request: string, status: number, statusText: string, text: string): DroverApiError {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const problem: Problem = isProblem(body)
      ? body
      : {
          type: 'about:blank',
          title: statusText || 'Error',
          status,
          detail: text.trim().slice(0, 200) || `HTTP ${status}`,
        };
    return new DroverApiError(status, problem, request);
  }
}
