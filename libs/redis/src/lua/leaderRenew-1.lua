--[[
  Extends the lease only if it is still ours with the same epoch (compare-and-PEXPIRE).

  Input:
    KEYS[1] leader key
    ARGV[1] fencing token "<instance>|<epoch>"
    ARGV[2] lease ms

  Output:
    1  renewed
    0  lost: expired, or taken by another instance or epoch
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
end
return 0
