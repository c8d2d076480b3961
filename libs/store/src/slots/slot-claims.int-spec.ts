import { DroverKeys, RedisConnections } from '@drover/redis';
import { testRedisUrl, uniquePrefix } from '@drover/testing';
import { parseClaim } from './slot-claim';
import { SlotClaims, type ClaimRequest } from './slot-claims.store';
import type { SlotDecision } from './slot-decision';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const fire = (at = NOW, v?: number): SlotDecision => ({
  kind: 'fire',
  source: 'schedule',
  cancel: [],
  at,
  ...(v !== undefined && { v }),
});

describe('slot claims (real Redis, the Lua scripts the scheduler and workers share)', () => {
  let conns: RedisConnections;
  let keys: DroverKeys;
  let claims: SlotClaims;

  beforeEach(async () => {
    conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'claims-test');
    keys = new DroverKeys(uniquePrefix('claims'), false);
    claims = new SlotClaims(conns.command, keys);
    // A routine exists while its state hash does (its definition is not needed by these scripts).
    await conns.command.hset(keys.routineState('r'), { since: NOW - 60_000, v: 1 });
  });

  afterEach(async () => {
    await conns.closeAll();
  });

  const claim = (slot: number, extra: Partial<ClaimRequest> = {}) =>
    claims.claim({ routine: 'r', slot, decision: fire(), now: NOW, ...extra });
  const state = async () => conns.command.hgetall(keys.routineState('r'));

  it('lets exactly one of many racers claim a slot and moves the cursor with the claim', async () => {
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => claim(NOW)));
    expect(outcomes.filter((o) => o.kind === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'taken')).toHaveLength(4);
    expect((await state()).lastSlot).toBe(String(NOW));
    const taken = outcomes.find((o) => o.kind === 'taken');
    expect(taken).toMatchObject({ kind: 'taken', claim: { state: 'pending', arm: 'none', rev: 0 } });
  });

  it('refuses an unclaimed slot behind the cursor: its claim expired long after it was handled', async () => {
    await claim(NOW);
    await conns.command.del(claims.key('r', NOW));
    expect(await claim(NOW)).toEqual({ kind: 'passed' });
    expect(await claim(NOW - 1000)).toEqual({ kind: 'passed' });
    expect((await claim(NOW + 1000)).kind).toBe('claimed');
  });

  it('claims nothing and recreates no state for a deleted routine', async () => {
    await conns.command.del(keys.routineState('r'));
    expect(await claim(NOW)).toEqual({ kind: 'gone' });
    expect(await conns.command.exists(claims.key('r', NOW), keys.routineState('r'))).toBe(0);
  });

  it('refuses a claim fenced by a token that is not the current leader', async () => {
    await conns.command.set(keys.leader(), 'sched-1|7');
    expect(await claim(NOW, { token: 'sched-1|6' })).toEqual({ kind: 'stale' });
    expect((await claim(NOW, { token: 'sched-1|7' })).kind).toBe('claimed');
  });

  it('marks a pending claim done only if it is still the value the caller holds', async () => {
    const first = await claim(NOW);
    if (first.kind !== 'claimed') throw new Error('not claimed');
    expect(await claims.finish('r', NOW, 'p-0|{"something":"else"}', NOW)).toBe(false);
    expect(await claims.finish('r', NOW, first.value, NOW)).toBe(true);
    expect(await claims.get('r', NOW)).toMatchObject({ state: 'done', arm: 'none', rev: 0, decision: fire() });
    // A done claim of a slot that was not armed lives a minute: the cursor covers it after that.
    expect(await conns.command.pttl(claims.key('r', NOW))).toBeLessThanOrEqual(60_000);
  });

  describe('runs armed ahead of their slots', () => {
    const entry = { slot: NOW + 60_000, version: 1, queue: 'default' };
    const arm = async () => {
      const res = await claims.claim({
        routine: 'r',
        slot: entry.slot,
        decision: fire(NOW, 1),
        now: NOW,
        armed: entry,
      });
      if (res.kind !== 'claimed') throw new Error(`not armed: ${res.kind}`);
      await claims.finish('r', entry.slot, res.value, NOW);
    };

    it('lists an armed slot in the routine state and drops entries whose slot has passed', async () => {
      await conns.command.hset(keys.routineState('r'), 'armed', `${NOW - 1}:1:default`);
      await arm();
      expect((await state()).armed).toBe(`${entry.slot}:1:default`);
    });

    it('revokes an armed run that has not started, and a refire takes the slot over under the next revision', async () => {
      await arm();
      const before = await claims.revoke('r', entry);
      expect(before).toMatchObject({ state: 'done', arm: 'armed', rev: 0 });
      expect((await state()).armed).toBeUndefined();
      expect(await claims.get('r', entry.slot)).toMatchObject({ arm: 'revoked', rev: 0 });
      // A worker holding the withdrawn run is told not to start it.
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('superseded');
      const takeover = await claims.claim({
        routine: 'r',
        slot: entry.slot,
        decision: fire(),
        now: NOW,
        takeoverOnly: true,
      });
      expect(takeover).toMatchObject({ kind: 'claimed', rev: 1 });
      // The old revision stays refused; the slot is no longer revocable by its old entry.
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('superseded');
      expect(await claims.revoke('r', entry)).toBeUndefined();
    });

    it('a refire never claims a slot that was not revoked', async () => {
      expect(
        await claims.claim({ routine: 'r', slot: NOW + 5, decision: fire(), now: NOW, takeoverOnly: true }),
      ).toEqual({
        kind: 'passed',
      });
      await arm();
      expect(
        (await claims.claim({ routine: 'r', slot: entry.slot, decision: fire(), now: NOW, takeoverOnly: true })).kind,
      ).toBe('taken');
    });

    it('lets a worker start an armed run once, after which it can no longer be revoked', async () => {
      await arm();
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('start');
      expect(await claims.get('r', entry.slot)).toMatchObject({ arm: 'started' });
      expect(await claims.revoke('r', entry)).toBeUndefined();
      // A retry of the same run (a later attempt) starts again even if the routine changed meanwhile.
      await conns.command.hset(keys.routineState('r'), 'v', 2);
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('start');
    });

    it('refuses to start a run armed for an older version and revokes its slot for a refire', async () => {
      await arm();
      await conns.command.hset(keys.routineState('r'), 'v', 2);
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('routine-changed');
      expect(await claims.get('r', entry.slot)).toMatchObject({ arm: 'revoked' });
    });

    it('refuses to start a run whose slot an operator skipped before the leader withdrew it, and revokes it for a refire', async () => {
      await arm();
      // Stored, as skipSlot stores it, but not yet acted on by the leader.
      await conns.command.hset(keys.routineSkips('r'), String(entry.slot), JSON.stringify({ by: 'op', at: NOW }));
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('slot-skipped');
      expect(await claims.get('r', entry.slot)).toMatchObject({ arm: 'revoked' });
    });

    it('starts an armed run when another slot of its routine is skipped, and a retry of a started one', async () => {
      await arm();
      await conns.command.hset(
        keys.routineSkips('r'),
        String(entry.slot + 1000),
        JSON.stringify({ by: 'op', at: NOW }),
      );
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('start');
      // A skip stored after the run started does not stop a later attempt of it.
      await conns.command.hset(keys.routineSkips('r'), String(entry.slot), JSON.stringify({ by: 'op', at: NOW }));
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('start');
    });

    it('refuses to start a run whose routine was deleted, and one whose claim expired after an edit', async () => {
      await arm();
      await conns.command.del(keys.routineState('r'));
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('routine-deleted');
      await conns.command.hset(keys.routineState('r'), 'v', 3);
      await conns.command.del(claims.key('r', entry.slot));
      expect(await claims.startArmed('r', entry.slot, 1, 0)).toBe('routine-changed-expired');
      expect(await claims.startArmed('r', entry.slot, 3, 0)).toBe('start');
    });

    it('does not revoke a claim armed for another version (a routine deleted and created again)', async () => {
      await arm();
      expect(await claims.revoke('r', { ...entry, version: 7 })).toBeUndefined();
      expect(parseClaim(await conns.command.get(claims.key('r', entry.slot)))).toMatchObject({ arm: 'armed' });
    });
  });
});
