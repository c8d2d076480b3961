import { Clock } from '@drover/redis';
import { testStores } from '@drover/testing';
import { SessionStore, SESSION_TTL_MS } from './session.store';

/** A clock the test moves. */
class TestClock extends Clock {
  constructor(public t: number) {
    super();
  }
  now(): number {
    return this.t;
  }
}

describe('SessionStore (real Redis)', () => {
  const stores = testStores('sessions');
  const clock = new TestClock(Date.UTC(2026, 0, 1));
  const store = new SessionStore(stores.connections, stores.keys, clock);

  afterAll(() => stores.close());

  it('keeps who logged in (not the token) under a hash of the id, with a TTL, until expiry or logout', async () => {
    const { id, session } = await store.open({ name: 'oncall', role: 'operator' }, 'ab'.repeat(32));
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.expiresAt - session.createdAt).toBe(SESSION_TTL_MS);
    await expect(store.get(id)).resolves.toMatchObject({
      name: 'oncall',
      role: 'operator',
      tokenSha256: 'ab'.repeat(32),
    });

    const keys = await stores.connections.command.keys(`${stores.keys.prefix}:*session*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(id);
    const ttl = await stores.connections.command.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(SESSION_TTL_MS - 60_000);

    clock.t += SESSION_TTL_MS;
    await expect(store.get(id)).resolves.toBeUndefined(); // expired by the cluster clock, TTL or not
    clock.t -= SESSION_TTL_MS;
    await store.close(id);
    await expect(store.get(id)).resolves.toBeUndefined();
  });

  it("answers nothing for a session that does not name its token's hash (made before sessions did)", async () => {
    const { id } = await store.open({ name: 'oncall', role: 'operator' }, 'cd'.repeat(32));
    const [key] = await stores.connections.command.keys(`${stores.keys.prefix}:*session*`);
    const now = clock.now();
    await stores.connections.command.set(
      key!,
      JSON.stringify({ name: 'oncall', role: 'operator', createdAt: now, expiresAt: now + 60_000 }),
    );
    await expect(store.get(id)).resolves.toBeUndefined();
    await store.close(id);
  });

  it('answers nothing for unknown or malformed ids', async () => {
    await expect(store.get('x'.repeat(43))).resolves.toBeUndefined();
    await expect(store.get('../../etc')).resolves.toBeUndefined();
  });
});
