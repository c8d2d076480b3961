--[[
  The leader's writes to the watchdog's index (routine -> when to look at it next), fenced. Each
  entry is set only while the routine's state still has the version and cursor it was computed
  from (guard "<v>|<c>", "" for none): a look or a rebuild that read the routine never overwrites
  the entry an edit or a claim made since. A routine whose state hash is gone (deleted) leaves the
  index.

  Input:
    KEYS[1] leader key
    KEYS[2] the watchdog's index
    KEYS[3..n] routine state hashes
    ARGV[1] fencing token
    ARGV[2..] per state hash, in order: routine name, score (epoch ms, "+inf"), guard

  Output:
    number of entries written, or -1 for a stale token (nothing written)
]]
local rcall = redis.call
if rcall("GET", KEYS[1]) ~= ARGV[1] then
  return -1
end
local written = 0
for k = 3, #KEYS do
  local i = 2 + (k - 3) * 3
  local name, score, guard = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if rcall("EXISTS", KEYS[k]) == 0 then
    rcall("ZREM", KEYS[2], name)
  else
    local state = rcall("HMGET", KEYS[k], "v", "lastSlot")
    if (state[1] or "") .. "|" .. (state[2] or "") == guard then
      rcall("ZADD", KEYS[2], score, name)
      written = written + 1
    end
  end
end
return written
