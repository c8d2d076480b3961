import { startHttpOracle, type HttpOracle } from '@drover/testing';
import { ApiCluster } from './support/api-cluster';

const EVERY = 2000;
const iso = (ms: number) => new Date(ms).toISOString();
/** A 6-field cron pattern naming exactly the UTC second of `ms` (an exclusion of that one slot). */
const secondOf = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} ${d.getUTCDate()} ${d.getUTCMonth() + 1} *`;
};

/**
 * An excluded slot and an operator-skipped one, against a real api, scheduler and worker, with an
 * HTTP receiver outside Redis counting what the routine's `http.request` runs deliver per slot
 * (X-Drover-Scheduled-For): neither arrives, their neighbours arrive once each, and the slot
 * ledger tells why. The skipped slot is armed when the skip comes (2 s slots, two armed ahead),
 * so the leader must withdraw its run.
 */
describe('routines api: skip one slot, exclusion calendars', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    api = await ApiCluster.start('api-routines-skip', {
      policy: { queues: [{ name: 'default', concurrency: 20 }], routines: [] },
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const delivered = (slot: number) =>
    oracle.hits.filter((h) => h.routine === 'skippy' && h.scheduledFor === iso(slot)).length;

  it('never delivers the excluded or the skipped slot, delivers their neighbours once, and the ledger says why', async () => {
    // The excluded slot X leaves time to apply; the skipped slot Y follows it.
    const x = Math.ceil((Date.now() + 8_000) / EVERY) * EVERY;
    const y = x + EVERY;
    const bundle = {
      queues: [{ name: 'default', concurrency: 20 }],
      calendars: { 'one-second': { cron: secondOf(x) } },
      routines: [
        {
          name: 'skippy',
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: EVERY },
          payload: { url: `${oracle.url}/skippy`, method: 'POST' },
          exclude: ['one-second'],
        },
      ],
    };
    expect((await api.call('POST', '/apply', { as: 'admin', body: bundle })).status).toBe(200);

    // Not a slot: refused with the nearest ones; a past slot: refused as past.
    const odd = await api.call('POST', '/routines/skippy/skip', { as: 'operator', body: { slot: iso(y + 500) } });
    expect([odd.status, odd.body.detail]).toEqual([422, expect.stringContaining(`the slot before is ${iso(y)}`)]);
    const past = await api.call('POST', '/routines/skippy/skip', {
      as: 'operator',
      body: { slot: iso(x - 20 * EVERY) },
    });
    expect(past.status).toBe(409);

    // Skip Y once it is armed: nothing is armed past the excluded X, so X's own fire (half a slot
    // late, as for every armed interval routine) arms Y; the leader must then withdraw that run.
    await new Promise((r) => setTimeout(r, Math.max(0, x + 800 - Date.now())));
    const skip = await api.call('POST', '/routines/skippy/skip', { as: 'operator', body: { slot: iso(y) } });
    expect([skip.status, skip.body]).toEqual([
      201,
      { skip: { slot: iso(y), by: 'operator-token', at: expect.any(String) }, created: true },
    ]);
    const listed = await api.call('GET', '/routines/skippy/skips', { as: 'viewer' });
    expect(listed.body.items).toEqual([{ slot: iso(y), by: 'operator-token', at: expect.any(String) }]);

    await oracle.waitFor('the slot after Y', () => delivered(y + EVERY) > 0, 20_000);
    await new Promise((r) => setTimeout(r, 1_000)); // a late duplicate would arrive by now
    expect([x - EVERY, x, y, y + EVERY].map(delivered)).toEqual([1, 0, 0, 1]);

    const ledger = await api.call('GET', `/routines/skippy/slots?from=${iso(x - EVERY - 1)}&to=${iso(y + EVERY)}`, {
      as: 'viewer',
    });
    expect(ledger.status).toBe(200);
    expect(
      ledger.body.items.map((i: { fate: string; reason?: string; detail?: string }) => [
        i.fate,
        i.detail ?? i.reason ?? '',
      ]),
    ).toEqual([
      ['ran', ''],
      ['skipped', 'excluded: one-second'],
      ['skipped', 'skipped-by-operator: by operator-token'],
      ['ran', ''],
    ]);
    // Decided: the skip is no longer pending.
    expect((await api.call('GET', '/routines/skippy/skips', { as: 'viewer' })).body.items).toEqual([]);
  }, 90_000);
});
