--[[
  Marks a pending slot claim done once its outcome (the run, or the skipped record) is written:
  a done claim is final, so nobody re-applies its decision. Compare-and-set on the whole value,
  so a claim revoked or taken over meanwhile is left alone.

  Input:
    KEYS[1] claim key
    ARGV[1] the pending value this caller read or wrote
    ARGV[2] ttl ms from now

  Output:
    1 marked done, 0 the claim is no longer that pending value
]]
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call("SET", KEYS[1], "d" .. string.sub(ARGV[1], 2), "PX", ARGV[2])
return 1
