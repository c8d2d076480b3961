import { Logger, type INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { json, text } from 'express';
import { AppConfig } from '@drover/config';
import { DroverMetrics } from '@drover/metrics';
import { consoleDir } from '../console/console-dir';
import { consoleHandler } from '../console/console-static';
import { sendProblem } from './api-exception.filter';

/** Largest request body the api reads (413 above it). */
export const MAX_BODY_BYTES = 1024 * 1024;

export const JSON_TYPES = ['application/json', 'application/*+json', 'application/merge-patch+json'];
export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/**
 * The api's HTTP plumbing, installed before Nest's routes (after runApp's security headers): which proxies to
 * trust, body parsers capped at 1 MiB (JSON, merge patches, YAML bundles; the nesting depth is checked per route,
 * see InputInterceptor), their errors as problem documents, and request metrics labelled
 * by route template (never by a routine or run name); and the web console's files at /ui.
 */
export function configureApiHttp(app: INestApplication): void {
  const metrics = app.get(DroverMetrics);
  // DROVER_TRUST_PROXY: which peers' X-Forwarded-Proto makes `req.secure` (the session cookie's
  // Secure flag and `__Host-` name). Authentication never reads X-Forwarded-For: development mode
  // checks the socket's own address, trusted proxy or not.
  const http = app.getHttpAdapter().getInstance() as { set(name: string, value: unknown): void };
  http.set('trust proxy', app.get(AppConfig).env.trustProxy);
  const logger = new Logger('Api');
  app.use('/api/', (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      const labels = { route: route ?? 'unmatched', method: req.method, code: String(res.statusCode) };
      metrics.apiRequests.inc(labels);
      // An event stream lasts as long as its client stays: its duration says nothing about the API.
      if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) return;
      metrics.apiRequestDuration.observe(
        { route: labels.route, method: labels.method },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  });
  app.use('/api/', json({ limit: MAX_BODY_BYTES, type: JSON_TYPES, strict: false }));
  app.use('/api/', text({ limit: MAX_BODY_BYTES, type: YAML_TYPES }));
  app.use('/api/', (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    sendProblem(res, err, logger, req);
  });
  app.use('/ui', consoleHandler(consoleDir()));
}
