--[[
  Called by a worker before it starts a run that was armed ahead of its slot: the run may start
  only if its slot's claim still names it, no operator skipped the slot and the routine is at the
  version it was armed for. The skip is read here rather than left to the leader's withdrawal
  alone, which acts only once it has heard of the skip: a run checked in between would start.
  A started run is no longer revocable. A run armed for an older version is revoked here (its
  slot is then refired with the routine as it is now).

  Input:
    KEYS[1] claim key
    KEYS[2] routine state hash
    KEYS[3] routine's pending operator skips (hash: slot -> who, when)
    ARGV[1] routine version the run was armed for
    ARGV[2] the run's revision of its slot
    ARGV[3] the slot (epoch ms), as the skips hash names it

  Output:
    1 start it
    2 do not start: the routine was deleted
    3 do not start: the slot was revoked or belongs to another revision
    4 do not start: the routine changed; revoked now (refire the slot)
    5 do not start: the routine changed (claim expired; nothing to refire)
    6 do not start: an operator skipped the slot; revoked now (refire it, to record the skip)
]]
local rcall = redis.call
local current = rcall("GET", KEYS[1])
if current then
  local arm = string.sub(current, 2, 2)
  local rev = string.match(current, "^..(%d+)|")
  if rev ~= ARGV[2] or arm == "r" then
    return 3
  end
  if arm == "s" then
    return 1
  end
  if arm == "a" and rcall("HEXISTS", KEYS[3], ARGV[3]) == 1 then
    rcall("SET", KEYS[1], string.sub(current, 1, 1) .. "r" .. string.sub(current, 3), "KEEPTTL")
    return 6
  end
end
if rcall("EXISTS", KEYS[2]) == 0 then
  if current and string.sub(current, 2, 2) == "a" then
    rcall("SET", KEYS[1], string.sub(current, 1, 1) .. "r" .. string.sub(current, 3), "KEEPTTL")
  end
  return 2
end
local version = rcall("HGET", KEYS[2], "v")
-- A routine stored before versions were kept in its state has none: nothing to compare.
if version and version ~= ARGV[1] then
  if not current then
    return 5
  end
  if string.sub(current, 2, 2) == "a" then
    rcall("SET", KEYS[1], string.sub(current, 1, 1) .. "r" .. string.sub(current, 3), "KEEPTTL")
    return 4
  end
  return 1
end
if current and string.sub(current, 2, 2) == "a" then
  rcall("SET", KEYS[1], string.sub(current, 1, 1) .. "s" .. string.sub(current, 3), "KEEPTTL")
end
return 1
