import { ApiCluster } from '../api/support/api-cluster';
import { droverAs } from './support/drover-cli';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** `drover routines skip|skips`, as the built binary against a real api. */
describe('drover routines skip and skips (real processes)', () => {
  let api: ApiCluster;
  let operator: ReturnType<typeof droverAs>;
  let viewer: ReturnType<typeof droverAs>;
  const slot = Math.ceil((Date.now() + 60_000) / HOUR) * HOUR + HOUR;

  beforeAll(async () => {
    api = await ApiCluster.start('cli-skips', {
      scheduler: false,
      worker: false,
      policy: { queues: [{ name: 'default' }], routines: [] },
    });
    const routine = { name: 'hourly', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: HOUR } };
    const bundle = { queues: [{ name: 'default' }], routines: [routine] };
    expect((await api.call('POST', '/apply', { as: 'admin', body: bundle })).status).toBe(200);
    operator = droverAs(api, 'operator');
    viewer = droverAs(api, 'viewer');
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  }, 30_000);

  it('skips a slot once, refuses an instant that is no slot, lists the skip and undoes it', async () => {
    const skipped = await operator(['routines', 'skip', 'hourly', iso(slot)]);
    expect([skipped.code, skipped.stdout]).toEqual([0, `slot ${iso(slot)} of hourly will be skipped\n`]);
    const again = await operator(['routines', 'skip', 'hourly', iso(slot)]);
    expect(again.stdout).toBe(`slot ${iso(slot)} of hourly was skipped already (by operator-token)\n`);
    const odd = await operator(['routines', 'skip', 'hourly', iso(slot + 1000)]);
    expect(odd.code).not.toBe(0);
    expect(odd.stderr).toContain(`the slot before is ${iso(slot)}, the slot after is ${iso(slot + HOUR)}`);
    expect((await viewer(['routines', 'skip', 'hourly', iso(slot + HOUR)])).code).toBe(4);

    const listed = await viewer(['routines', 'skips', 'hourly']);
    expect(listed.stdout).toMatch(new RegExp(`^${iso(slot).replace(/\./g, '\\.')}\\s+.*operator-token`, 'm'));
    const preview = await viewer(['routines', 'preview', 'hourly', '--count', '3']);
    expect(preview.stdout).toContain('skipped-by-operator: by operator-token');

    const undone = await operator(['routines', 'skips', 'hourly', '--undo', iso(slot)]);
    expect([undone.code, undone.stdout]).toEqual([0, `skip of ${iso(slot)} undone: the slot runs as usual\n`]);
    expect((await viewer(['routines', 'skips', 'hourly'])).stdout).toBe('no pending skips of hourly\n');
  }, 60_000);
});
