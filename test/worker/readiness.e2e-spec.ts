import { freePort, startApp, startRedisServer, waitFor } from '@drover/testing';

describe('worker readiness and Redis (real worker process)', () => {
  it('is alive but not consuming while Redis is away, starts consuming once it comes, exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const app = await startApp('worker', {
      env: { REDIS_URL: `redis://127.0.0.1:${port}`, DROVER_QUEUES: 'default', LOG_LEVEL: 'info' },
      waitReady: false,
    });
    let redis: Awaited<ReturnType<typeof startRedisServer>> | undefined;
    try {
      await app.waitForLog(/listening on/, 20_000);
      expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${app.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { error: Record<string, { status: string; message?: string }> };
      expect(body.error.consuming).toMatchObject({ status: 'down', message: expect.stringMatching(/^starting/) });

      redis = await startRedisServer({ port });
      await waitFor('the worker to become ready', async () => (await fetch(`${app.baseUrl}/readyz`)).status === 200, {
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      await app.waitForLog(/"msg":"worker consuming"/, 10_000);
    } finally {
      expect(await app.stop('SIGTERM')).toBe(0);
      await redis?.stop();
    }
  }, 90_000);
});
