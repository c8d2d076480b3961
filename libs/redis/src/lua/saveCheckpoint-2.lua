--[[
  Stores a run's checkpoint on its job hash, only for the attempt that holds the run: a worker
  whose lease expired (the run reclaimed, or about to be) must not overwrite what the run's current
  attempt wrote. The job's lock holds the token BullMQ gave the attempt that took it.

  The first checkpoint of a run also marks the run's record (its `data` field) with `"ck":1`, by
  editing its JSON text at the front: the record is not decoded and encoded again (cjson would
  rewrite its numbers and empty arrays), and a cancel writing the record meanwhile keeps its word.

  Input:
    KEYS[1] the job hash
    KEYS[2] the job's lock
    ARGV[1] the attempt's lock token
    ARGV[2] the checkpoint's field
    ARGV[3] the checkpoint (its stored form)
    ARGV[4] ''  leave the data as it is
            '+' mark the data (a JSON object): `{"ck":1,...`
            any other: the new data, whole

  Output:
    1 stored
   -1 not stored: this attempt no longer holds the run
]]
local rcall = redis.call
if rcall("GET", KEYS[2]) ~= ARGV[1] then
  return -1
end
rcall("HSET", KEYS[1], ARGV[2], ARGV[3])
if ARGV[4] == "+" then
  local data = rcall("HGET", KEYS[1], "data")
  if data and string.sub(data, 1, 1) == "{" and string.sub(data, 1, 8) ~= '{"ck":1,' then
    if data == "{}" then
      data = '{"ck":1}'
    else
      data = '{"ck":1,' .. string.sub(data, 2)
    end
    rcall("HSET", KEYS[1], "data", data)
  end
elseif ARGV[4] ~= "" then
  rcall("HSET", KEYS[1], "data", ARGV[4])
end
return 1
