--[[
  A leader-only write: sets hash fields only while the caller's fencing token is current.
  A stale leader (paused past its lease, partitioned) is refused here, whatever it believes.

  Input:
    KEYS[1] leader key
    KEYS[2] hash to write
    ARGV[1] fencing token "<instance>|<nonce>|<epoch>"
    ARGV[2..] field, value pairs ("" value deletes the field)

  Output:
    1 written, -1 stale token (nothing written)
]]
if redis.call("GET", KEYS[1]) ~= ARGV[1] then
  return -1
end
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == "" then
    redis.call("HDEL", KEYS[2], ARGV[i])
  else
    redis.call("HSET", KEYS[2], ARGV[i], ARGV[i + 1])
  end
end
return 1
