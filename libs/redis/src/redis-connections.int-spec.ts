import { Worker } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { startRedisServer, testRedisClient, testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { checkMemoryPolicy } from './memory-policy';
import { RedisConnections } from './redis-connections';

describe('RedisConnections against a real redis-server', () => {
  it('writes through one connection and reads back through another', async () => {
    const conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'test');
    const reader = testRedisClient();
    const key = `${uniquePrefix('conn')}:hello`;
    try {
      await conns.command.set(key, 'world');
      expect(await reader.get(key)).toBe('world');
      const blocking = conns.open('blocking', 'bull');
      expect(await blocking.ping()).toBe('PONG');
      // The connection name makes Drover's clients findable in CLIENT LIST.
      expect(await reader.client('LIST')).toContain('name=drover:test:cmd');
      await conns.ping();
    } finally {
      await conns.closeAll();
      reader.disconnect();
    }
  });

  it('borrows a caller-owned client: commands go through it, duplicates are closed, it is not', async () => {
    const own = testRedisClient();
    const reader = testRedisClient();
    const conns = RedisConnections.borrowing(own, 'borrow');
    const key = `${uniquePrefix('conn')}:borrowed`;
    try {
      expect(conns.command).toBe(own);
      expect(conns.isCluster).toBe(false);
      await conns.command.set(key, 'v');
      const blocking = conns.open('blocking', 'events');
      expect(blocking).not.toBe(own);
      expect((blocking.options as RedisOptions).maxRetriesPerRequest).toBeNull();
      expect(await blocking.get(key)).toBe('v');
      expect(await reader.client('LIST')).toContain('name=drover:borrow:events');
      const ended = new Promise((resolve) => blocking.once('end', resolve));
      await conns.closeAll();
      await ended;
      expect(own.status).toBe('ready');
      expect(await own.get(key)).toBe('v');
    } finally {
      own.disconnect();
      reader.disconnect();
    }
  });

  it('fails a readiness ping quickly when Redis is unreachable', async () => {
    const conns = new RedisConnections({ kind: 'url', url: 'redis://127.0.0.1:1', tls: false }, 'test');
    try {
      await expect(conns.ping(300)).rejects.toThrow();
    } finally {
      await conns.closeAll();
    }
  });

  it('abandon() drops every connection, the copies BullMQ made included, so a Worker closes while Redis is gone', async () => {
    const server = await startRedisServer();
    const conns = new RedisConnections({ kind: 'url', url: server.url, tls: false }, 'test');
    const connection = conns.open('blocking', 'w');
    const worker = new Worker(uniquePrefix('abandon'), async () => 'done', { connection });
    worker.on('error', () => undefined);
    try {
      await worker.waitUntilReady();
      await waitFor('the worker to block for jobs', () => worker.isRunning());
      await server.kill('SIGKILL');
      // Closing now, while the connections wait to reconnect, strands BullMQ's blocked fetch.
      await waitFor('the connection to wait to reconnect', () => connection.status === 'reconnecting');
      const closing = worker.close();
      let gaveUp = false;
      void conns.abandoned.then(() => (gaveUp = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(gaveUp).toBe(false);
      // The connection opened here (BullMQ's main one) and the copy BullMQ made for its blocking fetch.
      expect(conns.abandon()).toBe(2);
      await conns.abandoned; // what shutdown hooks race their closes against
      await closing;
    } finally {
      await conns.closeAll();
      await server.stop();
    }
  });

  it('says noeviction is fine and warns about an evicting policy', async () => {
    const server = await startRedisServer();
    const conns = new RedisConnections({ kind: 'url', url: server.url, tls: false }, 'test');
    try {
      expect(await checkMemoryPolicy(conns.command)).toEqual({ ok: true, policy: 'noeviction' });
      await conns.command.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const verdict = await checkMemoryPolicy(conns.command);
      expect(verdict).toMatchObject({ ok: false, policy: 'allkeys-lru' });
      expect(verdict.ok === false && verdict.message).toMatch(/noeviction/);
    } finally {
      await conns.closeAll();
      await server.stop();
    }
  });

  it('checks the policy where CONFIG is forbidden (an ACL user), and says so when even INFO is', async () => {
    const server = await startRedisServer({ extraArgs: ['--rename-command', 'CONFIG', ''] });
    const admin = new RedisConnections({ kind: 'url', url: server.url, tls: false }, 'test');
    const url = (user: string) => `redis://${user}:pw@127.0.0.1:${server.port}`;
    const [withInfo, withoutInfo] = ['with-info', 'without-info'].map(
      (user) => new RedisConnections({ kind: 'url', url: url(user), tls: false }, 'test'),
    );
    try {
      await admin.command.call('ACL', 'SETUSER', 'with-info', 'on', '>pw', '+@all', '-@dangerous', '+info');
      await admin.command.call('ACL', 'SETUSER', 'without-info', 'on', '>pw', '+@all', '-@dangerous');
      expect(await checkMemoryPolicy(withInfo!.command)).toEqual({ ok: true, policy: 'noeviction' });
      const verdict = await checkMemoryPolicy(withoutInfo!.command);
      expect(verdict).toMatchObject({ ok: 'unknown' });
      expect(verdict.ok === 'unknown' && verdict.message).toMatch(/NOPERM.*noeviction/);
    } finally {
      await Promise.all([admin, withInfo!, withoutInfo!].map((c) => c.closeAll()));
      await server.stop();
    }
  });
});
