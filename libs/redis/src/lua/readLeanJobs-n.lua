--[[
  Reads job hashes for a listing without letting a large value out of Redis. For each key it
  answers the hash as HGETALL would, except for a value longer than the inline cap (HSTRLEN, so
  a large value is never loaded into this script either unless it must be reshaped):
    data        the run's record (JSON): decoded, a flow parent's list of children (`fc`) dropped,
                then its `payload` if still over the cap, encoded again
    returnvalue left out
    stacktrace  (a JSON array of strings, the attempt log) cut to its newest entries that fit;
                if even the newest does not fit, each string of it is cut
    any other   left out
  and names each reshaped or left-out value with its stored size, so the caller can say so.
  Field names are not otherwise assumed: every field of the hash is returned.

  Input:
    KEYS[1..n] job keys, all of one queue (one hash slot on Redis Cluster)
    ARGV[1]    inline cap, bytes

  Output: per key (in order) { { field, value, ... }, { what, bytes, ... } }
    where `what` is "payload" (dropped from data), "children" (a flow's list dropped from data), "data" (data left out: not a JSON object, or
    still over the cap without its payload), "returnvalue", "stacktrace" or another field name.
    A missing key answers { {}, {} }.
]]
local rcall = redis.call
local cap = tonumber(ARGV[1])

-- A string cut to at most n bytes.
local function cut(s, n)
  if #s <= n then return s end
  return string.sub(s, 1, n)
end

-- The run's record within the cap: a flow parent's list of children (`fc`) goes first, then the
-- payload; nil when even that is over. Also answers the bytes the list took (0 when it stayed) and
-- whether the payload went.
local function leanData(raw)
  local ok, rec = pcall(cjson.decode, raw)
  if not ok or type(rec) ~= "table" or rec["payload"] == nil then return nil, 0, false end
  local children = 0
  if rec["fc"] ~= nil then
    rec["fc"] = nil
    local out = cjson.encode(rec)
    children = math.max(0, #raw - #out)
    if #out <= cap then return out, children, false end
  end
  rec["payload"] = nil
  local out = cjson.encode(rec)
  if #out > cap then return nil, 0, false end
  return out, children, true
end

-- The newest entries of the attempt log that fit within the cap.
local function leanStacktrace(raw)
  local ok, list = pcall(cjson.decode, raw)
  if not ok or type(list) ~= "table" then return "[]" end
  local kept, total = {}, 2
  for i = #list, 1, -1 do
    local entry = list[i]
    if type(entry) ~= "string" then break end
    if total + #entry + 3 > cap then
      if #kept == 0 then
        -- The newest entry alone is too long: keep it with each of its strings cut.
        local isRecord, rec = pcall(cjson.decode, entry)
        if isRecord and type(rec) == "table" then
          for k, v in pairs(rec) do
            if type(v) == "string" then rec[k] = cut(v, math.floor(cap / 8)) end
          end
          entry = cjson.encode(rec)
        end
        table.insert(kept, 1, cut(entry, math.floor(cap / 2)))
      end
      break
    end
    table.insert(kept, 1, entry)
    total = total + #entry + 3
  end
  if #kept == 0 then return "[]" end
  return cjson.encode(kept)
end

local out = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local hash, omitted = {}, {}
  for _, field in ipairs(rcall("HKEYS", key)) do
    local len = rcall("HSTRLEN", key, field)
    local value = nil
    if len <= cap then
      value = rcall("HGET", key, field)
    elseif field == "data" then
      local children, payloadGone
      value, children, payloadGone = leanData(rcall("HGET", key, field))
      if value then
        if payloadGone then
          omitted[#omitted + 1] = "payload"
          omitted[#omitted + 1] = math.max(0, len - #value - children)
        end
        if children > 0 then
          omitted[#omitted + 1] = "children"
          omitted[#omitted + 1] = children
        end
      else
        value = "{}"
        omitted[#omitted + 1] = "data"
        omitted[#omitted + 1] = len
      end
    elseif field == "stacktrace" then
      value = leanStacktrace(rcall("HGET", key, field))
      omitted[#omitted + 1] = field
      omitted[#omitted + 1] = len
    else
      omitted[#omitted + 1] = field
      omitted[#omitted + 1] = len
    end
    if value then
      hash[#hash + 1] = field
      hash[#hash + 1] = value
    end
  end
  out[i] = { hash, omitted }
end
return out
