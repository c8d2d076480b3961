import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { runIdForSlot } from '@drover/core';
import { LOGGER } from '@drover/logger';
import { Clock } from '@drover/redis';
import { BullQueues, requestRefire, SlotClaims, SlotSkips, type ArmedEntry } from '@drover/store';

/**
 * Withdraws runs armed ahead of their slots when their routine changed: the slot's claim is
 * revoked (after which no worker starts the run, see startArmedRun-3.lua), the waiting job is
 * removed, and — unless the routine is gone — the slot is refired so it is decided again with the
 * routine as it is now (a paused routine records it skipped, an edited one runs the new
 * definition under the slot's next revision). A run that already started is left alone.
 */
@Injectable()
export class Disarmer {
  constructor(
    private readonly claims: SlotClaims,
    private readonly bull: BullQueues,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly skips: SlotSkips,
  ) {}

  /**
   * Withdraws the runs of `routine` armed for slots an operator has since skipped; each slot is
   * refired, and its fire records it `skipped-by-operator`. Returns how many were withdrawn.
   */
  async disarmSkipped(routine: string, armed: ArmedEntry[]): Promise<number> {
    if (armed.length === 0) return 0;
    const skipped = await this.skips.pending(routine);
    const entries = armed.filter((e) => skipped.has(e.slot));
    if (entries.length === 0) return 0;
    return this.disarm(routine, entries, { refire: true, why: 'an operator skipped its slot' });
  }

  /** Withdraws `entries` of `routine`; `refire` false for a deleted routine. Returns how many were withdrawn. */
  async disarm(routine: string, entries: ArmedEntry[], opts: { refire: boolean; why: string }): Promise<number> {
    let withdrawn = 0;
    for (const entry of entries) {
      const before = await this.claims.revoke(routine, entry);
      if (!before) continue;
      withdrawn++;
      // Best effort: a job left behind is refused by the worker when its slot comes.
      await this.bull
        .get(entry.queue)
        .remove(runIdForSlot(routine, entry.slot, before.rev))
        .catch(() => 0);
      if (opts.refire) {
        await requestRefire(this.bull, routine, entry.slot, before.rev, entry.slot - this.clock.now());
      }
    }
    if (withdrawn) this.log.info({ routine, withdrawn, why: opts.why }, 'withdrew runs armed ahead of their slots');
    return withdrawn;
  }
}
