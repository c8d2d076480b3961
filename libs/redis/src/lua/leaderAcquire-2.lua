--[[
  Takes the leader lease if it is free, or renews it if this process start already holds it.
  The holder is the instance id plus the nonce of one process start: two processes given the
  same DROVER_INSTANCE_ID are two candidates, and neither renews the other's lease.

  Input:
    KEYS[1] leader key   (value "<instance>|<nonce>|<epoch>", expires after the lease)
    KEYS[2] epoch key    (monotonic counter: the fencing token source; never expires)
    ARGV[1] holder "<instance>|<nonce>"
    ARGV[2] lease ms

  Output:
    { epoch, lease value }  epoch > 0: this holder holds the lease with that epoch
                            epoch 0:   another holder has it; the value says who
]]
local value = redis.call("GET", KEYS[1])
if value then
  local holder, epoch = string.match(value, "^(.*)|(%d+)$")
  if holder == ARGV[1] then
    redis.call("PEXPIRE", KEYS[1], ARGV[2])
    return { tonumber(epoch), value }
  end
  return { 0, value }
end
local epoch = redis.call("INCR", KEYS[2])
value = ARGV[1] .. "|" .. epoch
redis.call("SET", KEYS[1], value, "PX", ARGV[2])
return { epoch, value }
