--[[
  Per-key concurrency: records a held run of a key and/or the end of a running one, then decides
  which held runs of the key start now: while the key runs fewer than its limit and has held runs,
  the oldest held run moves to the running set. The caller promotes each id answered (BullMQ's own
  promote). A held id whose job is gone (canceled while held) is dropped, not started.

  Input:
    KEYS[1] the key's held runs (zset: run id by enqueue time)
    KEYS[2] the key's running runs (set of run ids)
    KEYS[3] the queue's keys (zset: key by held + running)
    ARGV[1] the limit
    ARGV[2] the key
    ARGV[3] the queue's job key prefix (`<prefix>:<queue>:`)
    ARGV[4] a run id to hold ('' none; ignored when it holds a place already)
    ARGV[5] its enqueue time (ms)
    ARGV[6] a run id that ended ('' none)

  Output: per run to start, oldest first: its id, then when it is due (`ckeyAt` of its data: a
  run enqueued with a delay) or 0.
]]
local rcall = redis.call
-- A run already holding a place is not held again (a repair re-recording a run it found unlisted).
if ARGV[4] ~= "" and rcall("SISMEMBER", KEYS[2], ARGV[4]) == 0 then
  rcall("ZADD", KEYS[1], "NX", ARGV[5], ARGV[4])
end
if ARGV[6] ~= "" then
  rcall("SREM", KEYS[2], ARGV[6])
end
local limit = tonumber(ARGV[1])
local out = {}
while rcall("SCARD", KEYS[2]) < limit do
  local next = rcall("ZRANGE", KEYS[1], 0, 0)
  if #next == 0 then
    break
  end
  local id = next[1]
  rcall("ZREM", KEYS[1], id)
  if rcall("EXISTS", ARGV[3] .. id) == 1 then
    rcall("SADD", KEYS[2], id)
    local data = rcall("HGET", ARGV[3] .. id, "data")
    local at = 0
    if data and string.find(data, '"ckeyAt"', 1, true) then
      at = tonumber(cjson.decode(data).ckeyAt) or 0
    end
    out[#out + 1] = id
    out[#out + 1] = at
  end
end
local n = rcall("ZCARD", KEYS[1]) + rcall("SCARD", KEYS[2])
if n > 0 then
  rcall("ZADD", KEYS[3], n, ARGV[2])
else
  rcall("ZREM", KEYS[3], ARGV[2])
end
return out
