import { existsSync, readFile } from 'node:fs';
import { join } from 'node:path';
import { Router, static as serveStatic, type NextFunction, type Request, type Response } from 'express';

/** Vite names built assets by their content hash: a changed file is a new URL, so they never go stale. */
const ASSET_MAX_AGE = '365d';

/**
 * Scripts and styles from the console's own origin only (every asset ships with the app, no CDN);
 * API calls and event streams to the same origin; never framed.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const MISSING_BUILD = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Drover console not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>The Drover console is not built</h1>
<p>This api serves the web console from <code>dist/console</code>, which does not exist yet.
Run <code>npm run build</code> (or <code>npm start</code>, which builds first) and reload.</p>
<p>The management API itself works: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
</body></html>
`;

/** The console's pages load their own scripts: its policy replaces the apps' deny-all one (the rest of helmet's set stays). */
function consolePolicy(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', CSP);
  next();
}

/**
 * The console at `/ui`: hashed assets with a year-long immutable cache, index.html with
 * `no-cache` (so a new build is picked up at the next load), and index.html for every other
 * path without a file extension, so deep links (`/ui/runs/abc`) load the app, whose router takes
 * it from there. Without a build, a 503 page says how to make one. The directory is checked on
 * each request, so building while the api runs needs no restart.
 */
export function consoleHandler(dir: string | undefined): Router {
  const router = Router();
  const index = dir && join(dir, 'index.html');
  router.use(consolePolicy);
  router.use((_req, res, next) => {
    if (index && existsSync(index)) return next();
    res.status(503).setHeader('Cache-Control', 'no-store').type('html').send(MISSING_BUILD);
  });
  if (!dir || !index) return router;
  router.use(
    '/assets',
    serveStatic(join(dir, 'assets'), { index: false, immutable: true, maxAge: ASSET_MAX_AGE, fallthrough: false }),
  );
  router.use(
    serveStatic(dir, {
      index: false,
      redirect: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const last = req.path.split('/').pop() ?? '';
    if (last.includes('.')) {
      res.status(404).type('text').send('not found');
      return;
    }
    readFile(index, (err, html) => {
      if (err) return next(err);
      res.status(200).setHeader('Cache-Control', 'no-cache').type('html').send(html);
    });
  });
  return router;
}
