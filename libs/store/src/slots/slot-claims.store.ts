import { ScriptCode, withDroverScripts, type DroverKeys, type RedisClient, type ReplicaWait } from '@drover/redis';
import {
  doneClaimTtlMs,
  encodeArmedEntry,
  parseClaim,
  pendingClaimTtlMs,
  pendingClaimValue,
  type ArmedEntry,
  type SlotClaim,
} from './slot-claim';
import { encodeDecision, type SlotDecision } from './slot-decision';

export type ClaimOutcome =
  /** This caller decides the slot (`rev` > 0: a revoked slot taken over). `value` is the stored pending claim. */
  | { kind: 'claimed'; rev: number; value: string }
  /** Someone decided it already. */
  | { kind: 'taken'; claim?: SlotClaim }
  /** The caller's fencing token is stale: nothing was written. */
  | { kind: 'stale' }
  /** The routine no longer exists. */
  | { kind: 'gone' }
  /** The slot is behind the routine's cursor and its claim is gone: handled long ago. */
  | { kind: 'passed' };

export interface ClaimRequest {
  routine: string;
  slot: number;
  decision: SlotDecision;
  now: number;
  /** Leader-only callers fence their claims; fires pass none. */
  token?: string;
  /** Set when the slot's run is created ahead of the slot (recorded in the routine's armed list). */
  armed?: { version: number; queue: string };
  /** A refire: only take over a revoked claim, never claim a fresh slot. */
  takeoverOnly?: boolean;
  /**
   * The routine's next slot after this one, from the definition of `version`: the watchdog's index
   * moves there with the cursor (see {@link CursorNext}). Unset: the index stays where it is.
   */
  next?: CursorNext;
}

/** Where the watchdog's index goes when a cursor moves: the next slot after it, by the definition of `version`. */
export interface CursorNext {
  version: number;
  /** Undefined: the trigger has no slot after the cursor (a one-shot handled). */
  slot: number | undefined;
}

/** What workers get from {@link SlotClaims.startArmed}. */
export type ArmedStart =
  'start' | 'routine-deleted' | 'superseded' | 'routine-changed' | 'routine-changed-expired' | 'slot-skipped';

const ARMED_START: Record<number, ArmedStart> = {
  1: 'start',
  2: 'routine-deleted',
  3: 'superseded',
  4: 'routine-changed',
  5: 'routine-changed-expired',
  6: 'slot-skipped',
};

/**
 * Slot claims in Redis: the single record of what was decided for each slot of a routine (see
 * claimSlot-4.lua for the value format and the rules). Every transition is one Lua script, so a
 * fire, a revocation and a worker starting an armed run can never both win.
 */
export class SlotClaims {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
    /** With replicas to wait for, a claim counts only once they have it (see {@link claim}). */
    private readonly wait?: ReplicaWait,
  ) {}

  key(routine: string, slot: number): string {
    return this.keys.slotClaim(routine, slot);
  }

  private get scripts() {
    return withDroverScripts(this.redis);
  }

  /**
   * Claims a slot. With replicas to wait for (`DROVER_REDIS_WAIT_REPLICAS`), a won claim is answered
   * only once they have it; otherwise this throws `NotReplicatedError` and the caller must not act
   * on the claim (it stays pending, and whoever completes it confirms it first: {@link confirm}).
   */
  async claim(req: ClaimRequest): Promise<ClaimOutcome> {
    const decision = encodeDecision(req.decision);
    const ticket = this.wait?.enabled ? this.wait.begin() : undefined;
    const [code, payload] = await this.scripts.claimSlot(
      this.keys.leader(),
      this.key(req.routine, req.slot),
      this.keys.routineState(req.routine),
      this.keys.routineDue(),
      req.token ?? '',
      req.armed ? 'a' : '-',
      decision,
      pendingClaimTtlMs(req.slot, req.now),
      req.slot,
      req.armed ? encodeArmedEntry({ slot: req.slot, ...req.armed }) : '',
      req.now,
      req.takeoverOnly ? '1' : '',
      req.routine,
      req.next?.version ?? -1,
      req.next?.slot ?? '+inf',
    );
    if (code === 1) {
      const rev = Number(payload);
      if (ticket) await this.wait!.confirm(ticket, `the claim of slot ${req.slot} of routine "${req.routine}"`);
      return { kind: 'claimed', rev, value: pendingClaimValue(!!req.armed, rev, decision) };
    }
    if (code === 0) return { kind: 'taken', claim: parseClaim(String(payload)) };
    if (code === ScriptCode.StaleToken) return { kind: 'stale' };
    if (code === ScriptCode.RoutineGone) return { kind: 'gone' };
    return { kind: 'passed' };
  }

  /**
   * Before acting on a pending claim someone else made (completing it), makes sure the replicas have
   * it: WAIT covers only the writes of this connection, so it first rewrites the claim's own expiry
   * (the same instant its maker set), then waits. A no-op without replicas to wait for. Should the
   * maker mark it done in between, the done claim gets that pending expiry: longer for a fire's
   * claim, shorter (3 minutes past its slot rather than 10) for an armed one.
   */
  async confirm(routine: string, slot: number, claim: SlotClaim): Promise<void> {
    if (!this.wait?.enabled || !claim.decision) return;
    const madeAt = claim.decision.at;
    const ticket = this.wait.begin();
    await this.redis.pexpireat(this.key(routine, slot), madeAt + pendingClaimTtlMs(slot, madeAt));
    await this.wait.confirm(ticket, `the pending claim of slot ${slot} of routine "${routine}"`);
  }

  async get(routine: string, slot: number): Promise<SlotClaim | undefined> {
    return parseClaim(await this.redis.get(this.key(routine, slot)));
  }

  /**
   * Marks a pending claim done (final) once its outcome is written; false if it changed meanwhile.
   * `startAt`: a jittered run's planned start — an armed claim must outlive it (the worker reads it then).
   */
  async finish(routine: string, slot: number, pending: string, now: number, startAt = slot): Promise<boolean> {
    const claim = parseClaim(pending);
    if (!claim) return false;
    const ttl = doneClaimTtlMs(claim, Math.max(slot, startAt), now);
    return (await this.scripts.finishSlot(this.key(routine, slot), pending, ttl)) === 1;
  }

  /**
   * Withdraws an armed run that has not started: its claim is revoked (a worker will not start it)
   * and the entry leaves the routine's armed list. Returns the claim as it was if it was revoked.
   */
  async revoke(routine: string, entry: ArmedEntry): Promise<SlotClaim | undefined> {
    const [code, before] = await this.scripts.revokeSlot(
      this.key(routine, entry.slot),
      this.keys.routineState(routine),
      encodeArmedEntry(entry),
      entry.version,
    );
    return code === 1 ? parseClaim(before) : undefined;
  }

  /** Whether an armed run (armed for routine `version`, slot revision `rev`) may start now; see startArmedRun-3.lua. */
  async startArmed(routine: string, slot: number, version: number, rev: number): Promise<ArmedStart> {
    const code = await this.scripts.startArmedRun(
      this.key(routine, slot),
      this.keys.routineState(routine),
      this.keys.routineSkips(routine),
      version,
      rev,
      slot,
    );
    return ARMED_START[code] ?? 'superseded';
  }
}
