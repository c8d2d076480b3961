--[[
  Writes a routine definition with a compare-and-set on its version (a concurrent edit is
  detected, never lost), keeps the version in the routine's state hash (workers compare it with
  the version a run was armed for), optionally fenced by the leader token (apply on election),
  and announces the change. In the same step: the routine's entry in the watchdog's index goes to
  0 (look at it now: only the leader computes its next slot), the change is counted and logged for
  the reconciler, and the count of routines per status follows the new status (an active routine
  its launcher disabled is counted as "disabled", as core's countedStatus says).

  Input:
    KEYS[1] leader key
    KEYS[2] routine definitions hash
    KEYS[3] routine state hash
    KEYS[4] the watchdog's index (routine -> when to look at it)
    KEYS[5] change log (routine -> change count)
    KEYS[6] change count
    KEYS[7] routines per status
    ARGV[1] fencing token, or "" (API and client writes)
    ARGV[2] routine name
    ARGV[3] expected current version: "0" = must not exist yet
    ARGV[4] the new record (JSON)
    ARGV[5] the new version
    ARGV[6] channel announcing changes
    ARGV[7] "" or now (epoch ms): the cursor starts here (creation) or skips to here (resume)
    ARGV[8] "create" | "resume" | ""
    ARGV[9] on "resume": "" or when the pause being ended began (the slot ledger shows the slots slept through)

  Output:
    { 1, version }   written
    { 0, current }   the stored version is not the expected one (nothing written)
    { -1, 0 }        stale fencing token (nothing written)
]]
local rcall = redis.call
if ARGV[1] ~= "" and rcall("GET", KEYS[1]) ~= ARGV[1] then
  return { -1, 0 }
end
local raw = rcall("HGET", KEYS[2], ARGV[2])
local current = 0
local before = nil
if raw then
  local old = cjson.decode(raw)
  current = tonumber(old["v"]) or 0
  before = (old["d"] or {})["status"] or "active"
end
if current ~= tonumber(ARGV[3]) then
  return { 0, current }
end
rcall("HSET", KEYS[2], ARGV[2], ARGV[4])
rcall("HSET", KEYS[3], "v", ARGV[5])
if ARGV[8] == "create" then
  rcall("HSET", KEYS[3], "since", ARGV[7])
elseif ARGV[8] == "resume" then
  -- Slots slept through while paused are not caught up; the cursor never moves back.
  rcall("HSET", KEYS[3], "since", ARGV[7])
  if ARGV[9] and ARGV[9] ~= "" then
    rcall("HSET", KEYS[3], "pausedFrom", ARGV[9])
  end
  local cursor = tonumber(rcall("HGET", KEYS[3], "lastSlot") or "-1")
  if tonumber(ARGV[7]) > cursor then
    rcall("HSET", KEYS[3], "lastSlot", ARGV[7])
  end
end
local after = (cjson.decode(ARGV[4])["d"] or {})["status"] or "active"
if (rcall("HGET", KEYS[3], "disabledReason") or "") ~= "" then
  if before == "active" then before = "disabled" end
  if after == "active" then after = "disabled" end
end
if before ~= after then
  if before then
    rcall("HINCRBY", KEYS[7], before, -1)
  end
  rcall("HINCRBY", KEYS[7], after, 1)
end
rcall("ZADD", KEYS[4], 0, ARGV[2])
local seq = rcall("INCR", KEYS[6])
rcall("ZADD", KEYS[5], seq, ARGV[2])
rcall("ZREMRANGEBYSCORE", KEYS[5], "-inf", seq - 10000)
rcall("PUBLISH", ARGV[6], ARGV[2])
return { 1, tonumber(ARGV[5]) }
