--[[
  A leader-only write to a sorted set: adds or removes members only while the caller's fencing
  token is current, so a stale leader cannot undo what the current one wrote.

  Input:
    KEYS[1] leader key
    KEYS[2] sorted set to write
    ARGV[1] fencing token "<instance>|<nonce>|<epoch>"
    ARGV[2..] member, score pairs ("" score removes the member)

  Output:
    1 written, -1 stale token (nothing written)
]]
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
  return -1
end
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == "" then
    redis.call("ZREM", KEYS[2], ARGV[i])
  else
    redis.call("ZADD", KEYS[2], ARGV[i + 1], ARGV[i])
  end
end
return 1
