--[[
  Counts a queue's runs awaiting approval: delayed jobs whose approval gate still waits. A gated
  run is held until its expiry or a year ahead, so it sits at the far end of the delayed set:
  the scan reads that end first and stops after ARGV[2] jobs (the gauge says "at least" beyond).
  A job's data is decoded only when it holds a gate at all.

  Input:
    KEYS[1] the queue's delayed set
    ARGV[1] the queue's key prefix of jobs ("<prefix>:<queue>:")
    ARGV[2] the most jobs read

  Output: the count
]]
local rcall = redis.call
local ids = rcall("ZREVRANGE", KEYS[1], 0, tonumber(ARGV[2]) - 1)
local n = 0
for _, id in ipairs(ids) do
  local raw = rcall("HGET", ARGV[1] .. id, "data")
  if raw and string.find(raw, '"ap":', 1, true) then
    local ok, rec = pcall(cjson.decode, raw)
    if ok and type(rec) == "table" and type(rec["ap"]) == "table" and rec["ap"]["s"] == "w" then
      n = n + 1
    end
  end
end
return n
