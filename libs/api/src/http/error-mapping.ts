import { HttpException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { DroverError, RedisOutOfMemoryError } from '@drover/core';
import { ERROR_ANSWERS } from './error-answers';
import { problem, ProblemError, type Problem } from './problem';

export interface MappedError {
  problem: Problem;
  headers: Record<string, string>;
  /** False for errors the caller caused (4xx); true when the server must log it. */
  unexpected: boolean;
}

const known = (p: Problem, headers: Record<string, string> = {}): MappedError => ({
  problem: p,
  headers,
  unexpected: false,
});

/** Errors Express's body parsers raise before a route runs. */
interface BodyParserError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
}

/**
 * Every error a route may raise, as the problem document the caller gets. A DroverError is
 * answered by its code (ERROR_ANSWERS) and keeps its one-line message; only an error nobody
 * foresaw is a 500, and it never carries a stack or an internal message. Redis's out-of-memory
 * refusal is answered as its DroverError wherever a route's write met it (routes call the store,
 * which lets Redis's own errors through).
 */
export function mapError(thrown: unknown): MappedError {
  const err = RedisOutOfMemoryError.from(thrown);
  if (err instanceof ProblemError) return known(err.problem, err.headers);
  if (err instanceof DroverError) {
    const answer = ERROR_ANSWERS[err.code];
    if (answer)
      return known(problem(answer.status, err.message, answer.fields?.(err), err.code), answer.headers?.(err));
  }
  if (err instanceof ThrottlerException) {
    return known(problem(429, 'too many mutating requests for this token; retry later'), { 'Retry-After': '1' });
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status < 500) return known(problem(status, status === 404 ? 'no such route' : err.message));
  }
  const parser = err as BodyParserError | null;
  if (parser && typeof parser === 'object' && typeof parser.type === 'string' && parser.expose) {
    const status = parser.status ?? parser.statusCode ?? 400;
    if (parser.type === 'entity.too.large') return known(problem(413, 'the request body is over 1 MiB'));
    if (parser.type === 'entity.parse.failed') return known(problem(400, 'the request body is not valid JSON'));
    if (parser.type === 'charset.unsupported' || parser.type === 'encoding.unsupported') {
      return known(problem(415, 'unsupported body encoding or charset'));
    }
    if (status >= 400 && status < 500) return known(problem(status, 'the request body could not be read'));
  }
  return { problem: problem(500, 'internal error; the server logged it'), headers: {}, unexpected: true };
}
