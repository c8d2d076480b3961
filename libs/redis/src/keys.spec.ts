import { KEY_REGISTRY, type KeyName } from './key-registry';
import { DroverKeys } from './keys';

/**
 * Keys must stay byte for byte what Redis already holds: these are spelled out by hand, once, so a
 * registry edit that renames a key (and strands existing data) fails here.
 */
const EXPECTED: Record<KeyName, [parts: (string | number)[], key: string]> = {
  leader: [[], 'drover:{core}:leader'],
  leaderEpoch: [[], 'drover:{core}:leader-epoch'],
  leaderCandidate: [['node-1'], 'drover:{core}:leader-candidate:node-1'],
  schedulerDefs: [[], 'drover:{core}:scheduler-defs'],
  schedulesLater: [[], 'drover:{core}:schedules-later'],
  routines: [[], 'drover:{core}:routines'],
  routineState: [['nightly'], 'drover:{core}:rstate:nightly'],
  slotClaim: [['nightly', 1_700_000_000_000], 'drover:{core}:slot:nightly:1700000000000'],
  routineSkips: [['nightly'], 'drover:{core}:rskips:nightly'],
  disarm: [[], 'drover:{core}:disarm'],
  routineDue: [[], 'drover:{core}:routine-due'],
  routineChangeSeq: [[], 'drover:{core}:routine-change-seq'],
  routineChangeLog: [[], 'drover:{core}:routine-changes'],
  reconciled: [[], 'drover:{core}:reconciled'],
  routineCounts: [[], 'drover:{core}:routine-counts'],
  routinesChanged: [[], 'drover:{core}:routines-changed'],
  routineRuns: [['nightly'], 'drover:{core}:routine-runs:nightly'],
  routineOpen: [['nightly'], 'drover:{core}:routine-open:nightly'],
  routineStats: [['nightly', 1_700_000_000_000], 'drover:{core}:rstats:nightly:1700000000000'],
  queueStats: [['default', 'm', 1_700_000_400_000], 'drover:{core}:qstats:default:m:1700000400000'],
  producers: [[], 'drover:{core}:producers'],
  runRecord: [['r-1'], 'drover:{core}:run:r-1'],
  runsKept: [['default'], 'drover:{core}:runs-kept:default'],
  batch: [['bt-1'], 'drover:{core}:batch:bt-1'],
  batchRuns: [['bt-1'], 'drover:{core}:batch:bt-1:runs'],
  batchSettled: [['bt-1'], 'drover:{core}:batch:bt-1:settled'],
  batches: [[], 'drover:{core}:batches'],
  batchesOpen: [[], 'drover:{core}:batches-open'],
  cancel: [[], 'drover:{core}:cancel'],
  queues: [[], 'drover:{core}:queues'],
  queuesChanged: [[], 'drover:{core}:queues-changed'],
  queuesRanked: [[], 'drover:{core}:queues-ranked'],
  workers: [[], 'drover:{core}:workers'],
  worker: [['w-1'], 'drover:{core}:worker:w-1'],
  processes: [['api'], 'drover:{core}:processes:api'],
  process: [['api', 'a-1'], 'drover:{core}:process:api:a-1'],
  session: [['ab12'], 'drover:{core}:session:ab12'],
  audit: [[], 'drover:{core}:audit'],
  auditRefused: [[], 'drover:{core}:audit:refused'],
  operation: [['op-1'], 'drover:{core}:operation:op-1'],
  apiEvents: [[], 'drover:{core}:api-events'],
  candidatesAsk: [[], 'drover:{core}:candidates-ask'],
  candidatesProbe: [['p-1'], 'drover:{core}:candidates-probe:p-1'],
  bullJob: [['default', 'r-1'], 'drover:{default}:r-1'],
  bullJobLock: [['default', 'r-1'], 'drover:{default}:r-1:lock'],
  bullDelayed: [['default'], 'drover:{default}:delayed'],
  bullFailed: [['default'], 'drover:{default}:failed'],
  bullEvents: [['default'], 'drover:{default}:events'],
  bullDedup: [['default', 'r-1'], 'drover:{default}:de:r-1'],
  queueRanked: [['default'], 'drover:{default}:drover:ranked'],
  retentionSweep: [['default'], 'drover:{default}:drover:retention-sweep'],
  keyHeld: [['default', 'acme'], 'drover:{default}:drover:key-held:acme'],
  keyRunning: [['default', 'acme'], 'drover:{default}:drover:key-running:acme'],
  queueKeys: [['default'], 'drover:{default}:drover:keys'],
};

type Builder = (...parts: (string | number)[]) => string;
const build = (keys: DroverKeys, name: KeyName, parts: (string | number)[]) =>
  (keys[name] as unknown as Builder).apply(keys, parts);

describe('DroverKeys builds every registered key by name', () => {
  const cluster = new DroverKeys('drover', true);

  it.each(Object.keys(KEY_REGISTRY) as KeyName[])('%s is the key Redis already holds', (name) => {
    const [parts, key] = EXPECTED[name];
    expect(build(cluster, name, parts)).toBe(key);
  });

  it("fills a pattern's placeholders in order: the pattern is the key", () => {
    for (const name of Object.keys(KEY_REGISTRY) as KeyName[]) {
      const spec = KEY_REGISTRY[name];
      const placeholders = spec.pattern.match(/<[^>]+>/g) ?? [];
      const base = spec.scope === 'core' ? 'drover:{core}:' : 'drover:';
      expect(build(new DroverKeys('drover', false), name, placeholders)).toBe(base + spec.pattern);
    }
  });

  it('puts each queue under its own hash tag on Cluster only', () => {
    expect(cluster.bullQueueName('default')).toBe('{default}');
    expect(new DroverKeys('drover', false).bullDedup('default', 'r-1')).toBe('drover:default:de:r-1');
  });

  it('refuses a key given the wrong number of parts', () => {
    expect(() => build(cluster, 'routineState', [])).toThrow(/takes 1 parts, was given 0/);
  });

  it('names each key once', () => {
    const patterns = Object.values(KEY_REGISTRY).map((s) => `${s.scope}:${s.pattern}`);
    expect(new Set(patterns).size).toBe(patterns.length);
  });
});
