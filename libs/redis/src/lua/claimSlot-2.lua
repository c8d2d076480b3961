--[[
  Claims one slot of a routine so that it produces at most one run, whoever asks and however
  often: the first claim wins, later ones see who won. Optionally fenced by the leader token
  (used by leader-only paths such as catch-up on leadership).

  Input:
    KEYS[1] leader key
    KEYS[2] slot key (one per routine and slot time)
    ARGV[1] fencing token, or "" for an unfenced claim (the dispatcher: idempotent by slot)
    ARGV[2] claim value (the run id and outcome)
    ARGV[3] ttl ms (outlives the catch-up window)

  Output:
    1 claimed, 0 already claimed, -1 stale token (nothing written)
]]
if ARGV[1] ~= "" and redis.call("GET", KEYS[1]) ~= ARGV[1] then
  return -1
end
if redis.call("SET", KEYS[2], ARGV[2], "NX", "PX", ARGV[3]) then
  return 1
end
return 0
