--[[
  Gives the lease up (compare-and-DEL on the whole value) so a successor need not wait for it
  to expire.

  Input:
    KEYS[1] leader key
    ARGV[1] fencing token "<instance>|<nonce>|<epoch>"

  Output:
    1 released, 0 it was not ours (any more)
]]
if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("DEL", KEYS[1])
  return 1
end
return 0
