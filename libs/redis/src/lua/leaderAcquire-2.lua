--[[
  Takes the leader lease if it is free, or renews it if this instance already holds it.

  Input:
    KEYS[1] leader key   (value "<instance>|<epoch>", expires after the lease)
    KEYS[2] epoch key    (monotonic counter: the fencing token source; never expires)
    ARGV[1] instance id
    ARGV[2] lease ms

  Output:
    epoch (> 0)  this instance holds the lease with that epoch
    0            another instance holds it
]]
local holder = redis.call("GET", KEYS[1])
if holder then
  local sep = string.find(holder, "|", 1, true)
  if sep and string.sub(holder, 1, sep - 1) == ARGV[1] then
    redis.call("PEXPIRE", KEYS[1], ARGV[2])
    return tonumber(string.sub(holder, sep + 1))
  end
  return 0
end
local epoch = redis.call("INCR", KEYS[2])
redis.call("SET", KEYS[1], ARGV[1] .. "|" .. epoch, "PX", ARGV[2])
return epoch
