import type { NextFunction, Request, Response } from 'express';

/**
 * The API's answers are JSON, problem documents and event streams, never pages: nothing in them
 * may load, run or be framed. The console (`/ui`) replaces this policy with its own.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * What helmet sets by default, minus Strict-Transport-Security (the api mostly speaks plain HTTP
 * behind a TLS-terminating ingress, which owns HSTS for its host): no content sniffing, no
 * referrer, never framed, readable by the api's own origin only, and an opener of its own.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': API_CSP,
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Origin-Agent-Cluster': '?1',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-DNS-Prefetch-Control': 'off',
  'X-Download-Options': 'noopen',
  'X-Frame-Options': 'DENY',
  'X-Permitted-Cross-Domain-Policies': 'none',
  'X-XSS-Protection': '0',
};

/** Sets {@link SECURITY_HEADERS} on every answer (before any route can start one). */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  next();
}
