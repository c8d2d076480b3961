--[[
  Records a dispatch on a routine's state hash in one round trip: moves the catch-up cursor
  forward only (dispatchers may finish out of order) and sets the other fields given. Writes
  nothing once the routine is deleted (its state hash is gone), so no orphan state reappears.

  Input:
    KEYS[1] routine state hash
    ARGV[1] new cursor (slot, epoch ms), or "" to leave it
    ARGV[2..] field, value pairs ("" value deletes the field)

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
  end
end
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == "" then
    redis.call("HDEL", KEYS[1], ARGV[i])
  else
    redis.call("HSET", KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
return moved
