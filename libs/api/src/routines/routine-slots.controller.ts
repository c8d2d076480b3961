import { Controller } from '@nestjs/common';
import { z } from 'zod';
import {
  defaultLedgerFrom,
  MAX_LEDGER_SLOTS,
  parseIsoInstant,
  preemptedSkip,
  RUN_SOURCES,
  RoutineNotFoundError,
  RUN_STATUSES,
  SLOT_FATES,
  SLOT_SKIP_REASONS,
  slotLedger,
  type SlotRecord,
} from '@drover/core';
import { Clock } from '@drover/redis';
import { RoutineStore, RunStore, SlotSkips } from '@drover/store';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoInstantInput, isoOf, isoSchema as iso } from '../http/api-time';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { nameParams } from './routine-schemas';

/** `counts`' shape: a count per slot fate. */
type SlotFateCounts = Record<(typeof SLOT_FATES)[number], z.ZodNumber>;

/** When `from` is not given, the ledger reaches back this many slots before `to`. */
const DEFAULT_SLOTS = 50;

const SlotRunSchema = named(
  'SlotRun',
  z.object({
    id: z.string(),
    status: z.enum(RUN_STATUSES),
    source: z.enum(RUN_SOURCES),
    /** Attempts started so far (0: not started). */
    attempt: z.number().int(),
    reason: z.string().optional(),
    key: z.string().optional(),
    /** concurrencyPolicy `buffer-one`: made while this run was active; waited for it to end (still does while `scheduled`). */
    bufferedBehind: z
      .string()
      .optional()
      .describe('buffer-one: made while this run was active; waits for it to end while `scheduled`'),
  }),
);

const SlotLedgerSchema = named(
  'SlotLedger',
  z.object({
    routine: z.string(),
    from: iso,
    to: iso,
    now: iso,
    /** The newest slot a scheduler decided, or null. */
    cursor: iso.nullable(),
    limit: z.number().int(),
    // One named member per fate (not a record): OpenAPI then describes every property it requires.
    counts: z.strictObject(Object.fromEntries(SLOT_FATES.map((f) => [f, z.number().int()])) as SlotFateCounts),
    items: z.array(
      z.object({
        slot: iso,
        fate: z.enum(SLOT_FATES),
        trigger: z
          .string()
          .optional()
          .describe(
            'For a routine with a `triggers` list: the trigger this slot is attributed to (its name, else its index); an instant two triggers share is the first listed.',
          ),
        /** False for a slot a record names that the current schedule lacks (its trigger changed). */
        onSchedule: z.boolean(),
        /** False when the fate is inferred (a slot slept through while paused), not recorded. */
        recorded: z.boolean(),
        reason: z.enum(SLOT_SKIP_REASONS).optional(),
        detail: z.string().optional(),
        runs: z.array(SlotRunSchema),
        withdrawn: z.array(SlotRunSchema),
      }),
    ),
  }),
);

const listSlots = route({
  operationId: 'listSlots',
  method: 'GET',
  path: ':name/slots',
  summary: "The slot ledger: every slot of the routine's schedule in (from, to] with its fate",
  description:
    `Each slot is ran (its runs: id, status, attempts), skipped (a reason), superseded, due, not-yet-due or no-record ` +
    `(past, decided, no record left: retention or the index of the routine's newest 1000 runs). At most ` +
    `${MAX_LEDGER_SLOTS} slots: a wider range is a 400. \`to\` defaults to now, \`from\` to ${DEFAULT_SLOTS} slots ` +
    `before \`to\`; slots before the routine was created are not listed. Manual and ad-hoc runs are not slots; backfills and replays count for their slot.`,
  tag: 'routines',
  role: 'viewer',
  params: nameParams,
  query: z.strictObject({ from: isoInstantInput.optional(), to: isoInstantInput.optional() }),
  responses: { 200: { description: 'The ledger, oldest slot first', schema: SlotLedgerSchema } },
});

const field = (path: string, message: string) =>
  new ProblemError(400, `invalid request: ${path} ${message}`, [{ path, message }]);

const runOf = (r: SlotRecord) => ({
  id: r.id,
  status: r.status,
  source: r.source,
  attempt: r.attempt,
  ...(r.reason !== undefined && { reason: r.reason }),
  ...(r.key !== undefined && { key: r.key }),
  ...(r.bufferedBehind !== undefined && { bufferedBehind: r.bufferedBehind }),
});

@Controller('api/v1/routines')
export class RoutineSlotsController {
  constructor(
    private readonly routines: RoutineStore,
    private readonly runs: RunStore,
    private readonly clock: Clock,
    private readonly skips: SlotSkips,
  ) {}

  @ApiRoute(listSlots)
  async listSlots(@In() { params, query }: RouteInput<typeof listSlots>) {
    const { record, state } = await this.routines.getWithState(params.name);
    if (!record) throw new RoutineNotFoundError(params.name);
    const now = this.clock.now();
    const trigger = record.def;
    const to = query.to === undefined ? now : parseIsoInstant(query.to)!;
    const asked =
      query.from === undefined ? defaultLedgerFrom(trigger, to, DEFAULT_SLOTS) : parseIsoInstant(query.from)!;
    if (to <= asked) throw field('query.to', `must be after from (${isoOf(asked)})`);
    // Slots from before the routine existed are none of its slots.
    const from = Math.max(asked, record.createdAt);
    const pauses = [
      ...(state.pausedFrom !== undefined && state.since !== undefined
        ? [{ from: state.pausedFrom, to: state.since }]
        : []),
      ...(record.def.status === 'paused' && record.pause ? [{ from: record.pause.at }] : []),
      // No fires reach a disabled or archived routine: what lies past its cursor is not on its way.
      ...(record.def.status === 'archived' && record.archive
        ? [{ from: record.archive.at, reason: 'archived' as const }]
        : []),
      ...(state.disabledReason !== undefined && state.lastSlot !== undefined
        ? [{ from: state.lastSlot, reason: 'disabled' as const }]
        : []),
    ];
    const probe = slotLedger(params.name, { trigger, from, to, now, records: [], limit: MAX_LEDGER_SLOTS });
    if (!probe.ok) throw tooMany(from, to);
    const [records, skips] = await Promise.all([
      this.runs.slotRecords(params.name, from, to),
      to > now ? this.skips.pending(params.name) : undefined,
    ]);
    // Slots still ahead that an exclusion or an operator's skip will skip say so before they come.
    const ahead = (slot: number) => preemptedSkip(record.def, slot, skips);
    const input = { trigger, from, to, now, records, cursor: state.lastSlot, pauses, ahead };
    const ledger = slotLedger(params.name, input);
    if (!ledger.ok) throw tooMany(from, to);
    const counts = Object.fromEntries(SLOT_FATES.map((f) => [f, 0])) as Record<(typeof SLOT_FATES)[number], number>;
    for (const s of ledger.slots) counts[s.fate]++;
    return {
      routine: record.def.name,
      from: isoOf(from),
      to: isoOf(to),
      now: isoOf(now),
      cursor: state.lastSlot === undefined ? null : isoOf(state.lastSlot),
      limit: MAX_LEDGER_SLOTS,
      counts,
      items: ledger.slots.map((s) => ({
        slot: isoOf(s.slot),
        fate: s.fate,
        ...(s.trigger !== undefined && { trigger: s.trigger }),
        onSchedule: s.onSchedule,
        recorded: s.recorded,
        ...(s.reason !== undefined && { reason: s.reason }),
        ...(s.detail !== undefined && { detail: s.detail }),
        runs: s.runs.map(runOf),
        withdrawn: s.withdrawn.map(runOf),
      })),
    };
  }
}

function tooMany(from: number, to: number): ProblemError {
  return field(
    'query.from',
    `the range (${isoOf(from)}, ${isoOf(to)}] holds more than ${MAX_LEDGER_SLOTS} slots; the limit is ${MAX_LEDGER_SLOTS}: narrow it`,
  );
}
