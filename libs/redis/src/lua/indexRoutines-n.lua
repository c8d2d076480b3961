--[[
  The leader's writes to the watchdog's index (routine -> when to look at it next), fenced. Each
  routine is written in one of two ways:
    guard ""          lower it only (ZADD LT; a missing entry is added): a full pass rebuilding the
                      index never delays a look someone else asked for meanwhile
    guard "<v>|<c>"   set it, only while the routine's state still has version v and cursor c
                      ("" for none): a look that read the routine never overwrites an edit's or a
                      claim's entry made since
  A routine whose state hash is gone (deleted) leaves the index.

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
  elseif guard == "" then
    written = written + rcall("ZADD", KEYS[2], "LT", "CH", score, name)
  else
    local state = rcall("HMGET", KEYS[k], "v", "lastSlot")
    if (state[1] or "") .. "|" .. (state[2] or "") == guard then
      rcall("ZADD", KEYS[2], score, name)
      written = written + 1
    end
  end
end
return written
