import { ApiCluster } from '../api/support/api-cluster';
import { droverAs } from './support/drover-cli';

/** `drover routines archive|unarchive` and the listing's `--all`, as the built binary against a real api. */
describe('drover routines archive and unarchive (real processes)', () => {
  let api: ApiCluster;
  let operator: ReturnType<typeof droverAs>;
  let viewer: ReturnType<typeof droverAs>;

  beforeAll(async () => {
    api = await ApiCluster.start('cli-archive', {
      scheduler: false,
      worker: false,
      policy: { queues: [{ name: 'default' }], routines: [] },
    });
    const routine = (name: string) => ({
      name,
      jobType: 'noop',
      queue: 'default',
      trigger: { kind: 'cron', cron: '0 9 * * *' },
    });
    const body = { queues: [{ name: 'default' }], routines: [routine('old-report'), routine('kept')] };
    expect((await api.call('POST', '/apply', { as: 'admin', body })).status).toBe(200);
    operator = droverAs(api, 'operator');
    viewer = droverAs(api, 'viewer');
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  }, 30_000);

  const namesIn = (out: string) => out.split('\n').map((l) => l.split(/\s+/)[0]);

  it('archives (hidden from ls unless --all or --status archived), refuses a pause meanwhile, and unarchives', async () => {
    const archived = await operator(['routines', 'archive', 'old-report']);
    expect([archived.code, archived.stdout]).toEqual([0, 'routine old-report archived\n']);
    const json = await operator(['routines', 'archive', 'old-report', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'archived', archive: { by: 'operator-token' } });

    expect(namesIn((await viewer(['routines', 'ls'])).stdout)).not.toContain('old-report');
    expect(namesIn((await viewer(['routines', 'ls', '--all'])).stdout)).toEqual(
      expect.arrayContaining(['old-report', 'kept']),
    );
    const only = await viewer(['routines', 'ls', '--status', 'archived', '-o', 'json']);
    expect((JSON.parse(only.stdout) as { name: string }[]).map((r) => r.name)).toEqual(['old-report']);
    expect((await viewer(['routines', 'get', 'old-report'])).stdout).toMatch(/^archived\s+.* by operator-token$/m);

    const pause = await operator(['routines', 'pause', 'old-report']);
    expect(pause.code).not.toBe(0);
    expect(pause.stderr).toMatch(/archived.*unarchive it first/);
    expect((await viewer(['routines', 'unarchive', 'old-report'])).code).toBe(4);

    const back = await operator(['routines', 'unarchive', 'old-report']);
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/^routine old-report active, next fire in /);
    expect(namesIn((await viewer(['routines', 'ls'])).stdout)).toContain('old-report');
  });
});
