import { testStores } from '@drover/testing';
import { AuditLog } from './audit-log.store';

describe('AuditLog filters (real Redis)', () => {
  const stores = testStores('audit-filter');
  const log = new AuditLog(stores.connections, stores.keys);
  const entry = (token: string, action: string, target: string) => ({
    at: '2026-01-01T00:00:00.000Z',
    token,
    role: 'operator',
    action,
    target,
    status: 200,
    ip: '127.0.0.1',
  });

  beforeAll(async () => {
    // 1 200 entries: every 100th is ana pausing nightly, the rest bob triggering other routines.
    for (let i = 0; i < 1200; i++) {
      await log.record(
        i % 100 === 0 ? entry('ana', 'pauseRoutine', 'name=nightly') : entry('bob', 'triggerRoutine', `name=r${i}`),
      );
    }
  });
  afterAll(() => stores.close());

  it('keeps only entries whose token, action and target contain the words given, any case, newest first, paged', async () => {
    const first = await log.list({ limit: 5, filter: { token: 'ANA', action: 'pause', target: 'nightly' } });
    expect(first.entries).toHaveLength(5);
    expect(first.entries.every((e) => e.token === 'ana' && e.target === 'name=nightly')).toBe(true);
    const ids = first.entries.map((e) => e.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const rest = await log.list({ limit: 5, before: first.next, filter: { token: 'ana' } });
    expect(rest.entries.map((e) => e.token)).toEqual(Array(5).fill('ana'));
    const last = await log.list({ limit: 5, before: rest.next, filter: { token: 'ana' } });
    expect(last.entries).toHaveLength(2);
    expect(last.next).toBeUndefined();
    expect(new Set([...ids, ...rest.entries.map((e) => e.id), ...last.entries.map((e) => e.id)]).size).toBe(12);
  });

  it('cuts by time with the stream ids; a filter nothing matches ends with an empty page', async () => {
    const all = await log.list({ limit: 1200 });
    const mid = Number(all.entries[600]!.id.split('-')[0]);
    const recent = await log.list({ limit: 1200, filter: { from: mid } });
    expect(recent.entries.every((e) => Number(e.id.split('-')[0]) >= mid)).toBe(true);
    const older = await log.list({ limit: 1200, filter: { to: mid } });
    expect(older.entries.every((e) => Number(e.id.split('-')[0]) < mid)).toBe(true);
    expect(recent.entries.length + older.entries.length).toBe(1200);
    // No match among the entries: the page is empty and ends, having read them all (fewer than the bound).
    await expect(log.list({ limit: 5, filter: { token: 'carol' } })).resolves.toEqual({ entries: [] });
  });
});
