import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { defineJob, parseBundle, priorityValue, type Routine } from '@drover/core';
import { z } from 'zod';
import { adHocRun, jobTypeIssue, keyConflict, startOf } from './ad-hoc-run';
import { tracksOpenRuns } from './open-runs';
import { overrideDedup, runOfRoutine, slotDedup } from './routine-run';
import { newRunId } from './run-id';
import type { RunView } from '../runs/run-view';

const NOW = 1_767_225_600_000;
const zero = () => 0;

function routine(extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }, { name: 'reports' }],
    routines: [
      {
        name: 'nightly',
        jobType: 'report.build',
        queue: 'reports',
        trigger: { kind: 'interval', everyMs: 60_000 },
        payload: { month: '2026-01' },
        ...extra,
      },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('newRunId: one kind of id per source', () => {
  it.each([
    [{ kind: 'slot', routine: 'nightly', slot: NOW } as const, `r-nightly-${NOW}`],
    [{ kind: 'slot', routine: 'nightly', slot: NOW, rev: 2 } as const, `r-nightly-${NOW}.2`],
    [{ kind: 'slot', routine: 'nightly', slot: NOW, rev: 1, keyIndex: 3 } as const, `r-nightly-${NOW}.1.k3`],
    [{ kind: 'backfill', routine: 'nightly', slot: NOW } as const, `b-nightly-${NOW}`],
    [{ kind: 'ad-hoc', now: NOW, random: zero } as const, `a-${NOW.toString(36)}-0000000000`],
    [{ kind: 'manual', now: NOW, random: zero } as const, `m-${NOW.toString(36)}-0000000000`],
    [{ kind: 'key', idempotencyKey: 'invoice:42:send' } as const, expect.stringMatching(/^k-[0-9a-f]{32}$/)],
    [{ kind: 'replay', parkedId: `r-nightly-${NOW}`, parkedAt: 36 } as const, `r-nightly-${NOW}.r10`],
    [{ kind: 'batch-callback', batch: 'bt-x-1', on: 'complete' } as const, 'bt-x-1.complete'],
  ])('%j → %s', (of, id) => {
    expect(newRunId(of)).toEqual(id);
  });

  it('gives the same key the same run and refuses an invalid routine name', () => {
    expect(newRunId({ kind: 'key', idempotencyKey: 'x' })).toBe(newRunId({ kind: 'key', idempotencyKey: 'x' }));
    expect(() => newRunId({ kind: 'backfill', routine: 'Bad Name', slot: NOW })).toThrow(RangeError);
  });
});

describe('tracksOpenRuns: the one rule for which routines list their open runs', () => {
  it('tracks forbid, replace and selector routines, and a run whose definition is not at hand', () => {
    expect(tracksOpenRuns({ concurrencyPolicy: 'allow' })).toBe(false);
    expect(tracksOpenRuns({ concurrencyPolicy: 'forbid' })).toBe(true);
    expect(tracksOpenRuns({ concurrencyPolicy: 'replace' })).toBe(true);
    expect(tracksOpenRuns(routine({ selector: { provider: 'p' } }))).toBe(true);
    expect(tracksOpenRuns(undefined)).toBe(true);
  });
});

describe('runOfRoutine', () => {
  it('takes job type, queue, priority, attempts, timeout and backoff from the definition', () => {
    const def = routine({
      concurrencyPolicy: 'forbid',
      priority: 'high',
      maxAttempts: 4,
      timeoutMs: 5000,
      backoff: { type: 'fixed', delayMs: 100 },
    });
    const run = runOfRoutine(def, { id: 'm-1', source: 'manual', scheduledFor: NOW, createdBy: 'ops' });
    expect(run).toEqual({
      id: 'm-1',
      routine: 'nightly',
      jobType: 'report.build',
      queue: 'reports',
      source: 'manual',
      scheduledFor: NOW,
      payload: { month: '2026-01' },
      priority: priorityValue('high'),
      maxAttempts: 4,
      timeoutMs: 5000,
      backoff: def.backoff,
      createdBy: 'ops',
      trackOpen: true,
    });
  });

  it('writes a selector key into the payload and onto the run, with the marker the producer asks for', () => {
    const def = routine({ selector: { provider: 'p' } });
    const run = runOfRoutine(def, {
      id: 'm-2',
      source: 'manual',
      scheduledFor: NOW,
      createdBy: 'ops',
      payload: { x: 1 },
      key: 'acme',
      dedup: overrideDedup('nightly', 'acme'),
    });
    expect(run).toMatchObject({ payload: { x: 1, key: 'acme' }, key: 'acme', dedup: { id: 'override:nightly:acme' } });
    expect(slotDedup('r-nightly-1', NOW + 1000, NOW)).toEqual({ id: 'r-nightly-1', ttlMs: expect.any(Number) });
  });

  it('tracks a run as open by the routine, whoever makes it', () => {
    for (const source of ['schedule', 'catch-up', 'manual'] as const) {
      const make = (def: Routine) => runOfRoutine(def, { id: 'x', source, scheduledFor: NOW, createdBy: 'y' });
      expect(make(routine({ concurrencyPolicy: 'forbid' })).trackOpen).toBe(true);
      expect(make(routine()).trackOpen).toBe(false);
    }
  });
});

describe('adHocRun', () => {
  const ctx = { now: NOW, random: zero, defaultQueue: 'default' };
  const base = { jobType: 'send', payload: {}, delayMs: 0, scheduledFor: null, priority: 0, createdBy: 'svc' };

  it('is a fresh api run on the default queue by default', () => {
    expect(adHocRun(base, ctx)).toEqual({
      id: newRunId({ kind: 'ad-hoc', now: NOW, random: zero }),
      routine: null,
      jobType: 'send',
      queue: 'default',
      source: 'api',
      scheduledFor: null,
      payload: {},
      priority: 0,
      delayMs: 0,
      maxAttempts: undefined,
      createdBy: 'svc',
      payloadChecked: true,
      freshId: true,
    });
  });

  it("takes the key's id (looked up in every queue), then the contract's queue and attempts", () => {
    const contract = defineJob('send', { payload: z.object({}), queue: 'reports', maxAttempts: 7 });
    const run = adHocRun({ ...base, contract, idempotencyKey: 'k' }, ctx);
    expect(run).toMatchObject({ id: newRunId({ kind: 'key', idempotencyKey: 'k' }), queue: 'reports', maxAttempts: 7 });
    expect(run.anyQueue).toBe(true);
    expect(run.freshId).toBeUndefined();
    expect(adHocRun({ ...base, contract, queue: 'default', maxAttempts: 2 }, ctx)).toMatchObject({
      queue: 'default',
      maxAttempts: 2,
    });
  });

  it('resolves a start from runAt or delayMs; a past runAt starts now', () => {
    expect(startOf({}, NOW)).toEqual({ delayMs: 0, scheduledFor: null });
    expect(startOf({ delayMs: 0 }, NOW)).toEqual({ delayMs: 0, scheduledFor: null });
    expect(startOf({ delayMs: 1500 }, NOW)).toEqual({ delayMs: 1500, scheduledFor: NOW + 1500 });
    expect(startOf({ runAt: NOW - 5 }, NOW)).toEqual({ delayMs: 0, scheduledFor: NOW - 5 });
  });

  it('names a blank or over-long job type', () => {
    expect(jobTypeIssue('send')).toBeUndefined();
    expect(jobTypeIssue('  ')).toMatch(/^jobType: " {2}" must be 1-\d+ characters$/);
    expect(jobTypeIssue('x'.repeat(1000))).toMatch(/^jobType: /);
  });

  it('reports a key bound to another job type or queue, with both operations', () => {
    const run = adHocRun({ ...base, idempotencyKey: 'k' }, ctx);
    const view = { id: run.id, jobType: 'send', queue: 'default' } as RunView;
    expect(keyConflict(view, run, 'k')).toBeUndefined();
    expect(keyConflict({ ...view, queue: 'reports' }, run, 'k')).toEqual({
      idempotencyKey: 'k',
      runId: run.id,
      existing: { jobType: 'send', queue: 'reports' },
      requested: { jobType: 'send', queue: 'default' },
    });
  });
});

describe('the run maker is the only one that makes runs', () => {
  const root = join(__dirname, '../../../..');
  const sources = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
      return /\.ts$/.test(name) && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(name) ? [path] : [];
    });
  const files = ['libs', 'apps'].flatMap((d) => sources(join(root, d)));
  const maker = join(root, 'libs/store/src/run-maker');
  const outside = files.filter((f) => !f.startsWith(maker));

  it('mints ids of new runs only here (core and the store keep the primitives)', () => {
    const minters = /\b(adHocRunId|runIdForIdempotencyKey|replayRunId|newBatchId)\(|`b-\$\{|\.k\$\{/;
    const primitives = ['libs/core/src/run/run-id.ts', 'libs/store/src/runs/run-ids.ts'];
    const offenders = outside
      .map((f) => relative(root, f))
      .filter((f) => !primitives.includes(f) && minters.test(readFileSync(join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('decides open-run tracking only here: no producer sets trackOpen by hand', () => {
    const offenders = outside
      .filter((f) => /\btrackOpen\s*:/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f))
      .filter((f) => f !== 'libs/store/src/runs/run-writer.ts');
    expect(offenders).toEqual([]);
  });
});
