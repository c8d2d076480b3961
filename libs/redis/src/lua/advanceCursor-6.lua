--[[
  Records a dispatch on a routine's state hash in one round trip: moves the catch-up cursor
  forward only (dispatchers may finish out of order) and sets the other fields given. Writes
  nothing once the routine is deleted (its state hash is gone), so no orphan state reappears.
  A moved cursor moves the routine's entry in the watchdog's index (as claimSlot does); a change
  of `disabledReason` (the reconciler drops a disabled routine's schedule) is counted and logged,
  and an active routine moves between the "active" and "disabled" counts (core's countedStatus).

  Input:
    KEYS[1] routine state hash
    KEYS[2] the watchdog's index
    KEYS[3] change log
    KEYS[4] change count
    KEYS[5] routine definitions hash
    KEYS[6] routines per status
    ARGV[1] new cursor (slot, epoch ms), or "" to leave it
    ARGV[2] routine name
    ARGV[3] the routine version the caller read
    ARGV[4] the routine's next slot after the new cursor, "+inf" for none
    ARGV[5..] field, value pairs ("" value deletes the field)

  Output:
    1 if the cursor moved, 0 if not, -2 if the routine no longer exists (nothing written)
]]
if redis.call("EXISTS", KEYS[1]) == 0 then
  return -2
end
local moved = 0
if ARGV[1] ~= "" then
  local current = tonumber(redis.call("HGET", KEYS[1], "lastSlot") or "-1")
  if tonumber(ARGV[1]) > current then
    redis.call("HSET", KEYS[1], "lastSlot", ARGV[1])
    moved = 1
    if redis.call("HGET", KEYS[1], "v") == ARGV[3] then
      redis.call("ZADD", KEYS[2], ARGV[4], ARGV[2])
    end
  end
end
for i = 5, #ARGV, 2 do
  local was = redis.call("HGET", KEYS[1], ARGV[i]) or ""
  if ARGV[i] == "disabledReason" and was ~= ARGV[i + 1] then
    local seq = redis.call("INCR", KEYS[4])
    redis.call("ZADD", KEYS[3], seq, ARGV[2])
    redis.call("ZREMRANGEBYSCORE", KEYS[3], "-inf", seq - 10000)
    if (was == "") ~= (ARGV[i + 1] == "") then
      local raw = redis.call("HGET", KEYS[5], ARGV[2])
      if raw and ((cjson.decode(raw)["d"] or {})["status"] or "active") == "active" then
        local gone, now = "active", "disabled"
        if was ~= "" then gone, now = "disabled", "active" end
        redis.call("HINCRBY", KEYS[6], gone, -1)
        redis.call("HINCRBY", KEYS[6], now, 1)
      end
    end
  end
  if ARGV[i + 1] == "" then
    redis.call("HDEL", KEYS[1], ARGV[i])
  else
    redis.call("HSET", KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return moved
