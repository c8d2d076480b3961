--[[
  Claims one slot of a routine so that it produces at most one run, whoever asks and however
  often. The claim is the slot's single record of what was decided; the routine's cursor (the
  newest slot claimed) moves with it in the same step, so a slot whose claim has expired is still
  known to be handled. When the cursor moves, the routine's entry in the watchdog's index moves
  to the next slot after it, computed by the caller from the definition it read: only if that
  definition is still the current version (otherwise the edit put the entry at 0, and the leader
  computes it).

  A claim value is "<state><arm><rev>|<decision>":
    state  p pending (decided, outcome not yet written) | d done (outcome written: final)
    arm    - not armed | a armed ahead, not started (revocable) | s armed, started | r revoked
    rev    revision of the slot: a revoked slot is taken over with rev + 1 (a new run id)

  Input:
    KEYS[1] leader key
    KEYS[2] claim key (one per routine and slot)
    KEYS[3] routine state hash (absent once the routine is deleted)
    KEYS[4] the watchdog's index (routine -> when to look at it)
    ARGV[1] fencing token, or "" for an unfenced claim (fires: idempotent by slot)
    ARGV[2] arm flag of a new claim: "-" or "a"
    ARGV[3] decision (JSON)
    ARGV[4] ttl ms
    ARGV[5] slot (epoch ms)
    ARGV[6] armed entry "<slot>:<version>:<queue>" to record, or ""
    ARGV[7] now (epoch ms): armed entries before it are pruned
    ARGV[8] "1" = take over a revoked claim only (a refire), never make a fresh one
    ARGV[9] routine name
    ARGV[10] the routine version the caller read
    ARGV[11] the routine's next slot after ARGV[5] (epoch ms), "+inf" for none

  Output:
    { 1, rev }       claimed (fresh, or a revoked claim taken over with rev + 1)
    { 0, value }     already claimed: the existing claim value
    { -1, "" }       stale fencing token (nothing written)
    { -2, "" }       the routine no longer exists (nothing written)
    { -3, "" }       unclaimed but behind the cursor: handled long ago (nothing written)
]]
local rcall = redis.call
if ARGV[1] ~= "" and rcall("GET", KEYS[1]) ~= ARGV[1] then
  return { -1, "" }
end
if rcall("EXISTS", KEYS[3]) == 0 then
  return { -2, "" }
end
local slot = tonumber(ARGV[5])
local cursor = tonumber(rcall("HGET", KEYS[3], "lastSlot") or "-1")
local function advance()
  if slot > cursor then
    rcall("HSET", KEYS[3], "lastSlot", ARGV[5])
    if rcall("HGET", KEYS[3], "v") == ARGV[10] then
      rcall("ZADD", KEYS[4], ARGV[11], ARGV[9])
    end
  end
end

local current = rcall("GET", KEYS[2])
local rev = 0
if current then
  if string.sub(current, 2, 2) ~= "r" then
    advance()
    return { 0, current }
  end
  rev = tonumber(string.match(current, "^..(%d+)|")) + 1
elseif ARGV[8] == "1" or slot <= cursor then
  return { -3, "" }
end

rcall("SET", KEYS[2], "p" .. ARGV[2] .. rev .. "|" .. ARGV[3], "PX", ARGV[4])
advance()
if ARGV[6] ~= "" then
  local now = tonumber(ARGV[7])
  local kept = {}
  for entry in string.gmatch(rcall("HGET", KEYS[3], "armed") or "", "[^,]+") do
    if tonumber(string.match(entry, "^(%d+)")) >= now then
      table.insert(kept, entry)
    end
  end
  table.insert(kept, ARGV[6])
  rcall("HSET", KEYS[3], "armed", table.concat(kept, ","))
end
return { 1, rev }
