--[[
  Revokes a run armed ahead of its slot that has not started (its routine was edited, paused or
  deleted): the claim is marked revoked, so the run is never started (workers check the claim
  when an armed run starts) and a refire of the slot may take it over with a new revision.
  The entry is dropped from the routine's armed list either way.

  Input:
    KEYS[1] claim key
    KEYS[2] routine state hash (may be absent: the routine was deleted)
    ARGV[1] armed entry "<slot>:<version>:<queue>" to drop from the list
    ARGV[2] the routine version it was armed for: a claim armed for another version (a routine
            deleted and created again under the same name) is not this entry's

  Output:
    { 1, value } revoked (value = the claim before), { 0, value or "" } not revocable
]]
local rcall = redis.call
local kept = {}
local list = rcall("HGET", KEYS[2], "armed")
if list then
  for entry in string.gmatch(list, "[^,]+") do
    if entry ~= ARGV[1] then
      table.insert(kept, entry)
    end
  end
  if #kept > 0 then
    rcall("HSET", KEYS[2], "armed", table.concat(kept, ","))
  else
    rcall("HDEL", KEYS[2], "armed")
  end
end
local current = rcall("GET", KEYS[1])
if not current or string.sub(current, 2, 2) ~= "a" then
  return { 0, current or "" }
end
local decision = cjson.decode(string.match(current, "^..%d+|(.*)$"))
if tostring(decision["v"]) ~= ARGV[2] then
  return { 0, current }
end
rcall("SET", KEYS[1], string.sub(current, 1, 1) .. "r" .. string.sub(current, 3), "KEEPTTL")
return { 1, current }
