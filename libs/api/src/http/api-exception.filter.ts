import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { BaseExceptionFilter, HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { mapError } from './error-mapping';

export const API_PREFIX = '/api/v1';

/** Writes a problem document (and its headers) unless the answer has started (an event stream). */
export function sendProblem(res: Response, err: unknown, logger: Logger, req: Request): void {
  const mapped = mapError(err);
  if (mapped.unexpected) {
    logger.error(`${req.method} ${req.originalUrl} failed: ${(err as Error)?.stack ?? String(err)}`);
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [k, v] of Object.entries(mapped.headers)) res.setHeader(k, v);
  res.status(mapped.problem.status).type('application/problem+json').send(JSON.stringify(mapped.problem));
}

/**
 * Every error under /api/ becomes `application/problem+json` (docs/api.md), unknown routes included;
 * the health and metrics routes keep Nest's own handling (terminus answers 503 its own way).
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Api');
  private readonly fallback: BaseExceptionFilter;

  constructor(adapterHost: HttpAdapterHost) {
    this.fallback = new BaseExceptionFilter(adapterHost.httpAdapter);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    if (!req?.originalUrl?.startsWith('/api/')) {
      this.fallback.catch(exception, host);
      return;
    }
    sendProblem(http.getResponse<Response>(), exception, this.logger, req);
  }
}
