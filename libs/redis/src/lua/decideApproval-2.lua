--[[
  Takes an operator's approve or reject of a run held back by its approval gate: the job's data is
  replaced only if it is still exactly what the caller read and decided on, and the job is still
  held back (in the delayed set). Of two decisions racing on one run exactly one is taken; one
  that comes after the gate's expiry released the run to the workers is refused.

  Input:
    KEYS[1] the job hash
    KEYS[2] the queue's delayed set
    ARGV[1] job id
    ARGV[2] the job's data as the caller read it
    ARGV[3] the job's new data

  Output:
    1 taken, 0 refused (no longer held back, or the data changed since it was read)
]]
local rcall = redis.call
if not rcall("ZSCORE", KEYS[2], ARGV[1]) then
  return 0
end
if rcall("HGET", KEYS[1], "data") ~= ARGV[2] then
  return 0
end
rcall("HSET", KEYS[1], "data", ARGV[3])
return 1
