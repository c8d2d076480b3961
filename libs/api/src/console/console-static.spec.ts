import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { consoleDir } from './console-dir';
import { consoleHandler } from './console-static';

async function serve(dir: string | undefined): Promise<{ url: string; server: Server }> {
  const app = express();
  app.use('/ui', consoleHandler(dir));
  app.use((_req, res) => void res.status(418).send('fell through'));
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    );
  });
}

describe('console static files at /ui', () => {
  const built = mkdtempSync(join(tmpdir(), 'drover-console-'));
  mkdirSync(join(built, 'assets'));
  writeFileSync(join(built, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(built, 'assets', 'index-abc123.js'), 'console.log(1)');
  let ok: { url: string; server: Server };
  let missing: { url: string; server: Server };

  beforeAll(async () => {
    ok = await serve(built);
    missing = await serve(join(built, 'nope'));
  });
  afterAll(() => {
    ok.server.close();
    missing.server.close();
  });

  it('serves hashed assets with a year-long immutable cache and index.html with no-cache', async () => {
    const asset = await fetch(`${ok.url}/ui/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    for (const path of ['/ui', '/ui/']) {
      const index = await fetch(`${ok.url}${path}`);
      expect(index.status).toBe(200);
      expect(index.headers.get('cache-control')).toBe('no-cache');
      expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await index.text()).toContain('<title>console</title>');
    }
  });

  it('answers index.html for deep links (the app routes them) and 404 for missing files', async () => {
    const deep = await fetch(`${ok.url}/ui/runs/a-m1x2y3`);
    expect(deep.status).toBe(200);
    expect(deep.headers.get('cache-control')).toBe('no-cache');
    expect(await deep.text()).toContain('<title>console</title>');
    expect((await fetch(`${ok.url}/ui/assets/index-gone.js`)).status).toBe(404);
    expect((await fetch(`${ok.url}/ui/favicon.png`)).status).toBe(404);
  });

  it('answers 503 with how to build it when dist/console is missing', async () => {
    const res = await fetch(`${missing.url}/ui/routines`);
    expect(res.status).toBe(503);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toContain('npm run build');
  });

  it('finds dist/console beside the drover package.json, from src as from dist', () => {
    const root = join(__dirname, '..', '..', '..', '..');
    expect(consoleDir()).toBe(join(root, 'dist', 'console'));
    expect(consoleDir(join(root, 'dist', 'libs', 'api', 'src', 'console'))).toBe(join(root, 'dist', 'console'));
  });
});
