--[[
  Extends the lease only if this process start still holds it with the same epoch
  (compare-and-PEXPIRE on the whole value: instance, nonce and epoch).

  Input:
    KEYS[1] leader key
    ARGV[1] fencing token "<instance>|<nonce>|<epoch>"
    ARGV[2] lease ms

  Output:
    1  renewed
    0  lost: expired, or taken by another holder or epoch
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
end
return 0
