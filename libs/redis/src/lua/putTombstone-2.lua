--[[
  Writes the record of a run that has no BullMQ job (a skipped fire, a run canceled before it
  started, a replayed parked run) and keeps the queue's records within its retention: each
  expires after the retention age, and beyond the retention count the oldest are deleted.

  Input:
    KEYS[1] the run's record key
    KEYS[2] the queue's index of records (sorted set, score = written at)
    ARGV[1] record (JSON)
    ARGV[2] ttl ms (retention age)
    ARGV[3] "NX" to write only if there is none, or ""
    ARGV[4] now (epoch ms)
    ARGV[5] retention count
    ARGV[6] run id
    ARGV[7] key prefix of records ("<prefix>:{core}:run:")

  Output:
    1 written, 0 not written (NX and one exists)
]]
local rcall = redis.call
local ttl = math.max(1, tonumber(ARGV[2]))
if ARGV[3] == "NX" then
  if not rcall("SET", KEYS[1], ARGV[1], "PX", ttl, "NX") then
    return 0
  end
else
  rcall("SET", KEYS[1], ARGV[1], "PX", ttl)
end
local now = tonumber(ARGV[4])
rcall("ZADD", KEYS[2], now, ARGV[6])
rcall("ZREMRANGEBYSCORE", KEYS[2], "-inf", "(" .. (now - ttl))
local excess = rcall("ZCARD", KEYS[2]) - tonumber(ARGV[5])
if excess > 0 then
  for _, id in ipairs(rcall("ZRANGE", KEYS[2], 0, excess - 1)) do
    rcall("DEL", ARGV[7] .. id)
  end
  rcall("ZREMRANGEBYRANK", KEYS[2], 0, excess - 1)
end
rcall("PEXPIRE", KEYS[2], ttl)
return 1
