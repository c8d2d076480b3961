/** One of BullMQ's Lua commands as its package ships it (include-resolved, with its key count). */
export interface BullScript {
  name: string;
  content: string;
  keys: number;
}

/** What a guarded add answers when a guard key exists: a table, which BullMQ's add never returns. */
export const GUARD_HIT = '{0}';

/**
 * A script that runs BullMQ's add script once for each job of a batch, in order, each on its own
 * arguments and BullMQ's keys alone, so BullMQ's code sees exactly what a single add hands it.
 * BullMQ's script becomes the body of a function taking KEYS and ARGV (its locals, helpers and
 * returns are a function's as they were the chunk's). A job may be guarded: when any of its guard
 * keys exists it is not added and its answer is {@link GUARD_HIT}. A job whose add fails answers
 * its error and the jobs after it are still added, as if each had been a call of its own.
 *
 * KEYS: BullMQ's keys, then each job's guard keys in turn. ARGV: BullMQ's key count, its argument
 * count per job, then per job its guard key count and BullMQ's arguments. Answers one value per
 * job: what BullMQ's add answered (never nil: `false` stands in for it, so a nil cannot cut the
 * answer short), the guard hit, or an error.
 */
export function togetherScript(bull: BullScript): string {
  return `local function bullAdd(KEYS, ARGV)
${bull.content}
end
local nk, m = tonumber(ARGV[1]), tonumber(ARGV[2])
local bullKeys = {}
for k = 1, nk do bullKeys[k] = KEYS[k] end
local out = {}
local kc, ac = nk, 2
while ac < #ARGV do
  local g = tonumber(ARGV[ac + 1])
  local hit = g > 0 and redis.call("EXISTS", unpack(KEYS, kc + 1, kc + g)) > 0
  kc = kc + g
  if hit then
    out[#out + 1] = ${GUARD_HIT}
  else
    local argv = {}
    for k = 1, m do argv[k] = ARGV[ac + 1 + k] end
    local ok, r = pcall(bullAdd, bullKeys, argv)
    if not ok then
      if type(r) ~= "table" then r = redis.error_reply(tostring(r)) end
    elseif r == nil then
      r = false
    end
    out[#out + 1] = r
  end
  ac = ac + 1 + m
end
return out`;
}

/** The jobs of one batch: BullMQ's keys (shared), and per job its guard keys and BullMQ's arguments. */
export interface TogetherBatch {
  keys: readonly unknown[];
  /** BullMQ's arguments per job (the same count for every job). */
  argc: number;
  /** Every job's guard keys, in job order. */
  guards: unknown[];
  /** Per job, in job order: its guard key count, then BullMQ's arguments. */
  argv: unknown[];
}

/** The arguments of a {@link togetherScript} command: the key count first (it varies with the guards). */
export function togetherArgs(b: TogetherBatch): unknown[] {
  const out: unknown[] = [b.keys.length + b.guards.length];
  for (const k of b.keys) out.push(k);
  for (const k of b.guards) out.push(k);
  out.push(b.keys.length, b.argc);
  for (const a of b.argv) out.push(a);
  return out;
}
