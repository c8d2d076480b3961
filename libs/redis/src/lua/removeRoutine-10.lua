--[[
  Deletes a routine with everything kept per routine (state, run indexes), optionally fenced by
  the leader token and compare-and-set on its version. Runs armed ahead of their slots are handed
  to the disarm list in the same step, so the leader withdraws them even if this change is never
  announced; workers refuse to start them anyway (their routine's state is gone). The routine
  leaves the watchdog's index and the count per status (its counted status), and the change is counted and logged for
  the reconciler, in the same step.

  Input:
    KEYS[1] leader key
    KEYS[2] routine definitions hash
    KEYS[3] routine state hash
    KEYS[4] disarm hash (routine name -> armed entries of deleted routines)
    KEYS[5] the routine's recent-runs index
    KEYS[6] the routine's open-runs index
    KEYS[7] the watchdog's index
    KEYS[8] change log
    KEYS[9] change count
    KEYS[10] routines per status
    ARGV[1] fencing token, or ""
    ARGV[2] routine name
    ARGV[3] channel announcing changes
    ARGV[4] expected version, or "" for any

  Output:
    { 1, version } deleted, { 0, 0 } no such routine, { 0, current } version mismatch,
    { -1, 0 } stale fencing token
]]
local rcall = redis.call
if ARGV[1] ~= "" and rcall("GET", KEYS[1]) ~= ARGV[1] then
  return { -1, 0 }
end
local raw = rcall("HGET", KEYS[2], ARGV[2])
if not raw then
  return { 0, 0 }
end
local old = cjson.decode(raw)
local current = tonumber(old["v"]) or 0
if ARGV[4] ~= "" and current ~= tonumber(ARGV[4]) then
  return { 0, current }
end
local armed = rcall("HGET", KEYS[3], "armed")
if armed then
  local pending = rcall("HGET", KEYS[4], ARGV[2])
  rcall("HSET", KEYS[4], ARGV[2], pending and (pending .. "," .. armed) or armed)
end
-- Counted as core's countedStatus says: an active routine its launcher disabled is "disabled".
local status = (old["d"] or {})["status"] or "active"
if status == "active" and (rcall("HGET", KEYS[3], "disabledReason") or "") ~= "" then
  status = "disabled"
end
rcall("HDEL", KEYS[2], ARGV[2])
rcall("DEL", KEYS[3], KEYS[5], KEYS[6])
rcall("HINCRBY", KEYS[10], status, -1)
rcall("ZREM", KEYS[7], ARGV[2])
local seq = rcall("INCR", KEYS[9])
rcall("ZADD", KEYS[8], seq, ARGV[2])
rcall("ZREMRANGEBYSCORE", KEYS[8], "-inf", seq - 10000)
rcall("PUBLISH", ARGV[3], ARGV[2])
return { 1, current }
