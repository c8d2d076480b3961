--[[
  An operator's re-enable of a routine its launcher disabled: forgets the launcher's bookkeeping
  (failures, backoff, last error, the disable and its time: core's resetLauncher) in one step. When
  it was disabled, the change is counted and logged for the reconciler (which gives the routine its
  schedule again) and announced, its entry in the watchdog's index goes to 0 (look at it now), and an
  active routine moves from the "disabled" count back to "active" (core's countedStatus).

  Input:
    KEYS[1] routine definitions hash
    KEYS[2] routine state hash
    KEYS[3] the watchdog's index
    KEYS[4] change log
    KEYS[5] change count
    KEYS[6] routines per status
    ARGV[1] routine name
    ARGV[2] channel announcing changes
    ARGV[3..] the launcher's state fields

  Output:
    1 re-enabled (it was disabled), 0 not disabled (its failures and backoff are forgotten all the same),
    -2 no such routine (nothing written)
]]
local rcall = redis.call
local raw = rcall("HGET", KEYS[1], ARGV[1])
if not raw then
  return -2
end
local reason = rcall("HGET", KEYS[2], "disabledReason") or ""
for i = 3, #ARGV do
  rcall("HDEL", KEYS[2], ARGV[i])
end
if reason == "" then
  return 0
end
if ((cjson.decode(raw)["d"] or {})["status"] or "active") == "active" then
  rcall("HINCRBY", KEYS[6], "disabled", -1)
  rcall("HINCRBY", KEYS[6], "active", 1)
end
rcall("ZADD", KEYS[3], 0, ARGV[1])
local seq = rcall("INCR", KEYS[5])
rcall("ZADD", KEYS[4], seq, ARGV[1])
rcall("ZREMRANGEBYSCORE", KEYS[4], "-inf", seq - 10000)
rcall("PUBLISH", ARGV[2], ARGV[1])
return 1
