import { startHttpOracle, type HttpOracle } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { droverAs } from './support/drover-cli';

/** `drover routines override|overrides|candidates`, as the built binary against a real api and scheduler. */
describe('drover routines override, overrides and candidates (real processes)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  let operator: ReturnType<typeof droverAs>;
  let viewer: ReturnType<typeof droverAs>;

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) =>
        path === '/candidates'
          ? {
              json: [
                { key: 'docs', band: 2, stalenessSec: 150 },
                { key: 'api', band: 2, stalenessSec: 100, depth: 3 },
                { key: 'critic', band: 1, stalenessSec: null },
              ],
            }
          : undefined,
    });
    api = await ApiCluster.start('cli-overrides', {
      worker: false,
      policy: { queues: [{ name: 'default' }], routines: [] },
    });
    const body = {
      name: 'metas',
      jobType: 'noop',
      queue: 'default',
      status: 'paused',
      trigger: { kind: 'interval', everyMs: 1000 },
      selector: { provider: 'http.candidates', args: { url: `${oracle.url}/candidates` }, maxPerTick: 2 },
    };
    expect((await api.call('POST', '/routines', { as: 'operator', body })).status).toBe(201);
    operator = droverAs(api, 'operator');
    viewer = droverAs(api, 'viewer');
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  /** `key verdict` of each row of the candidates table. */
  const rows = (out: string) =>
    out
      .split('\n')
      .filter((l) => /^\d+\s/.test(l))
      .map((l) => l.split(/\s+/))
      .map((cells) => `${cells[1]} ${cells.at(-1)}`);

  it('prints the ranking, adds an override once, lists and clears it', async () => {
    const dry = await operator(['routines', 'candidates', 'metas']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^provider\s+http\.candidates$/m);
    expect(rows(dry.stdout)).toEqual(['critic chosen', 'api chosen', 'docs beyond-max-per-tick']);
    expect(dry.stdout).toMatch(/^2\s+api\s+2\s+100\s+3\s+200\s+chosen$/m);

    const added = await operator(['routines', 'override', 'metas', 'docs', '-o', 'json']);
    expect(added.code).toBe(0);
    const { runId } = JSON.parse(added.stdout) as { runId: string };
    const again = await operator(['routines', 'override', 'metas', 'docs']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`pending override for key "docs" (run ${runId})`);
    expect((await viewer(['routines', 'override', 'metas', 'api'])).code).toBe(4);

    const listed = await viewer(['routines', 'overrides', 'metas']);
    expect(listed.stdout).toMatch(new RegExp(`^docs\\s+${runId}\\s+queued\\s+.*operator-token$`, 'm'));
    expect(rows((await operator(['routines', 'candidates', 'metas'])).stdout)).toContain('docs pending-override');

    const refused = await operator(['routines', 'overrides', 'metas', '--clear']);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringMatching(/add --yes/)]);
    const cleared = await operator(['routines', 'overrides', 'metas', '--clear', '--yes']);
    expect([cleared.code, cleared.stdout]).toEqual([0, `cleared 1: ${runId}\n`]);
    expect((await viewer(['routines', 'overrides', 'metas'])).stdout).toBe('no pending overrides of metas\n');
  }, 60_000);
});
