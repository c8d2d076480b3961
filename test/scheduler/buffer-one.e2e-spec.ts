import { slotLedger, type Trigger } from '@drover/core';
import { waitFor, type AppProcess } from '@drover/testing';
import { Oracle, type OracleCall } from '../worker/support/oracle';
import { TestCluster } from './cluster';

const ROUTINE = 'buffered';
const TRIGGER: Trigger = { kind: 'interval', everyMs: 1000 };
/** How soon after the previous run's end a buffered run reaches the receiver: one promote away (measured: ~20 ms), where the next fire's repair would take up to a second. */
const RIGHT_AFTER_MS = 500;

/** The receiver's answered calls, in the order they arrived. */
const answered = (calls: OracleCall[]) => calls.filter((c) => c.answeredAt !== undefined).sort((a, b) => a.at - b.at);

/**
 * concurrencyPolicy buffer-one with real processes: a routine fires every second and each run takes
 * 3 s at the receiver, which records when each call began and ended. Runs never overlap; each one
 * made while another was active reaches the receiver right after that one ended; the slots that
 * found the buffer full are in the ledger as `overlap-buffer-full`. Then the worker running a run is
 * killed (-9): the buffered run waits until the run is recovered by another worker and ends, and
 * starts once.
 */
describe('buffer-one with real processes', () => {
  let oracle: Oracle;
  let cluster: TestCluster;
  const workers = new Map<string, AppProcess>();

  beforeAll(async () => {
    oracle = await new Oracle().start();
    oracle.answer = () => ({ status: 200, holdMs: 3000 });
    cluster = new TestCluster({
      // A short lease: a killed worker's run is reclaimed within seconds.
      queues: [{ name: 'default', concurrency: 5, leaseMs: 2000, maxAttempts: 3, timeoutMs: 20_000 }],
      routines: [
        {
          name: ROUTINE,
          jobType: 'http.request',
          queue: 'default',
          trigger: TRIGGER,
          concurrencyPolicy: 'buffer-one',
          payload: { url: `${oracle.url}/slow`, method: 'POST', timeoutMs: 10_000 },
        },
      ],
    });
    workers.set('worker-1', await cluster.start('worker', 'worker-1'));
    await cluster.start('scheduler', 'sched-1');
  }, 60_000);

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.stop();
  });

  it('never overlaps; a buffered run starts right after the active one ends; full-buffer slots are in the ledger', async () => {
    await oracle.until('4 runs answered', () => answered(oracle.calls).length >= 4, 40_000);
    const calls = answered(oracle.calls);
    expect(oracle.maxInFlight).toBe(1);
    for (let i = 1; i < calls.length; i++) expect(calls[i]!.at).toBeGreaterThanOrEqual(calls[i - 1]!.answeredAt!);

    const runs = await Promise.all(calls.map((c) => cluster.run(c.runId)));
    // Every run after the first was made while its predecessor ran: it waited for exactly that one.
    for (let i = 1; i < calls.length; i++) {
      expect(runs[i]!.bufferedBehind).toBe(calls[i - 1]!.runId);
      expect(calls[i]!.at - calls[i - 1]!.answeredAt!).toBeLessThan(RIGHT_AFTER_MS);
    }

    const from = Date.parse(calls[0]!.scheduledFor) - 1;
    const to = Date.parse(calls[calls.length - 1]!.scheduledFor) + 1;
    const records = await cluster.runs.slotRecords(ROUTINE, from, to);
    const ledger = slotLedger(ROUTINE, { trigger: TRIGGER, from, to, now: Date.now(), records });
    if (!ledger.ok) throw new Error('ledger refused');
    const skipped = ledger.slots.filter((s) => s.fate === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((s) => s.reason === 'overlap-buffer-full')).toBe(true);
    const ran = ledger.slots.filter((s) => s.fate === 'ran').map((s) => s.runs[0]!);
    expect(ran.map((r) => r.id)).toEqual(calls.map((c) => c.runId));
    expect(ran.slice(1).every((r) => r.bufferedBehind !== undefined)).toBe(true);
    // No slot reached the receiver twice (counted from the requests' X-Drover-Scheduled-For).
    const slots = oracle.calls.map((c) => c.scheduledFor);
    expect(new Set(slots).size).toBe(slots.length);
  }, 60_000);

  it('a worker killed -9 mid-run: the buffered run starts once, after the recovered run ends', async () => {
    workers.set('worker-2', await cluster.start('worker', 'worker-2'));
    // A run in flight for over a second: its successor is buffered behind it by now.
    const { active, buffered } = await waitFor(
      'a run in flight with a buffered run behind it',
      async () => {
        const inFlight = oracle.calls.find((c) => !c.answeredAt && !c.abortedAt);
        if (!inFlight || Date.now() - inFlight.at < 1200) return undefined;
        const open = await cluster.runs.openRunsOfRoutine(ROUTINE);
        const waits = open.find((r) => r.bufferedBehind === inFlight.runId && r.status === 'scheduled');
        return waits && { active: inFlight.runId, buffered: waits.id };
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    const holder = (await cluster.run(active))!.worker!;
    expect(await workers.get(holder)!.stop('SIGKILL')).toBe('SIGKILL');

    const { run } = await cluster.runs.waitForTerminal(buffered, 45_000);
    expect(run).toMatchObject({ status: 'succeeded', bufferedBehind: active, attempt: 1 });
    const activeCalls = oracle.callsOf(active);
    expect(activeCalls.map((c) => c.attempt)).toEqual([1, 2]);
    expect(activeCalls[0]!.abortedAt).toBeDefined();
    const [bufferedCall, ...again] = oracle.callsOf(buffered);
    expect(again).toEqual([]);
    // Never while the recovered run was active: it began after attempt 2 ended.
    expect(bufferedCall!.at).toBeGreaterThanOrEqual(activeCalls[1]!.answeredAt!);
    expect(bufferedCall!.at - activeCalls[1]!.answeredAt!).toBeLessThan(RIGHT_AFTER_MS);
  }, 90_000);
});
