--[[
  Counts one run of a batch as settled, once per run, and says when the batch's callbacks are due.
  The compare is here, in the script: only the increment that reaches the total answers "due"
  (and, after a crash between that answer and the callbacks being recorded, a replayed settle of a
  run already counted, while the batch is complete and its callbacks are not recorded as fired).

  Input:
    KEYS[1] the batch's record (hash: total, succeeded, parked, canceled, fired, ...)
    KEYS[2] the batch's settled runs (set of run ids)
    KEYS[3] the open batches (zset)
    ARGV[1] run id
    ARGV[2] outcome field: succeeded | parked | canceled
    ARGV[3] now (epoch ms)
    ARGV[4] batch id

  Output:
    { due, succeeded, parked, canceled, total, callbacks JSON, retention ms }
    due: 1 the callbacks are due, 0 not (open, or fired already), -1 no such batch (expired)
]]
local rcall = redis.call
if rcall("EXISTS", KEYS[1]) == 0 then
  return { -1, 0, 0, 0, 0, "", 0 }
end
local added = rcall("SADD", KEYS[2], ARGV[1])
if added == 1 then
  rcall("HINCRBY", KEYS[1], ARGV[2], 1)
  -- The settled set lives as long as the record it counts for.
  if rcall("PTTL", KEYS[2]) < 0 then
    rcall("PEXPIRE", KEYS[2], math.max(1, rcall("PTTL", KEYS[1])))
  end
end
local v = rcall("HMGET", KEYS[1], "total", "succeeded", "parked", "canceled", "fired", "callbacks", "retentionMs")
local total = tonumber(v[1]) or 0
local s = tonumber(v[2]) or 0
local p = tonumber(v[3]) or 0
local c = tonumber(v[4]) or 0
local settled = s + p + c
local due = 0
if settled >= total and total > 0 then
  if added == 1 and settled == total then
    due = 1
    rcall("HSET", KEYS[1], "completedAt", ARGV[3])
    rcall("ZREM", KEYS[3], ARGV[4])
  elseif added == 0 and not v[5] then
    due = 1
  end
end
return { due, s, p, c, total, v[6] or "", tonumber(v[7]) or 0 }
