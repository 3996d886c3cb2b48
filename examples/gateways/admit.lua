-- HAProxy (Debian's 2.6, built with Lua): every request checked by Admit's /v1/authz before it
-- goes on. No module outside Debian's package. haproxy.cfg loads it (`lua-load-per-thread`) and
-- runs it with
--   http-request lua.admit "policy=gateway-api&key=header:X-Client-Authorization&key=ip"
-- Environment: ADMIT_HOP (the address of haproxy.cfg's `admit_hop` listener, e.g.
-- abns@admit-check) and ADMIT_TIMEOUT_MS (default 2000). docs/gateways.md explains it;
-- test/gateways/ runs it as it is.
--
-- The check goes to haproxy.cfg's `admit_hop` listener inside this HAProxy (an abstract socket, no
-- network port), which holds the gateway's key, sets Host, and speaks HTTPS to Admit with SNI and
-- certificate verification over connections it keeps and reuses. This script never sees the key.
--
-- Allowed: through, with txn.admit_ratelimit / txn.admit_ratelimit_policy for the response.
-- Refused (Admit's answer carries Admit-Authz-Refused): Admit's status, Retry-After, RateLimit
-- headers and problem to the client. Admit's fail-closed 503/504: passed on as they are.
-- Admit not answering (down, silent past the timeout, its certificate refused): txn.admit_failed,
-- through with `Admit-RateLimit-Enforced: false` (fail OPEN; haproxy.cfg names the line that fails
-- closed). Any other answer (401/403 of the gateway's own key, 404 unknown policy, 422): the
-- configuration is wrong; txn.admit_misconfigured, answered by haproxy.cfg with the gateway's own
-- 500, never Admit's WWW-Authenticate or problem, and logged here.

local hop = os.getenv("ADMIT_HOP") or "abns@admit-check"
local timeout_s = tonumber(os.getenv("ADMIT_TIMEOUT_MS") or "2000") / 1000

-- A header's first value: HAProxy's header tables are indexed from 0.
local function first(values)
  if values == nil then return nil end
  return values[0] or values[1]
end

local PASSED = { "retry-after", "ratelimit", "ratelimit-policy", "content-type" }

-- Reads exactly one answer: the head, then the body by its Content-Length (or its chunks), never
-- waiting for the connection to close. nil when the socket failed or timed out.
local function read_answer(sock)
  local status_line = sock:receive("*l")
  if status_line == nil then return nil end
  local status = tonumber(string.match(status_line, "^HTTP/1%.%d (%d%d%d)"))
  if status == nil then return nil end
  local res = { status = status, headers = {}, body = "" }
  while true do
    local line = sock:receive("*l")
    if line == nil then return nil end
    if line == "" or line == "\r" then break end
    local name, value = string.match(line, "^([^:]+):[ \t]*(.-)\r?$")
    if name then res.headers[string.lower(name)] = { [0] = value } end
  end
  local length = tonumber(first(res.headers["content-length"]) or "")
  if length ~= nil then
    if length > 0 then
      res.body = sock:receive(length)
      if res.body == nil then return nil end
    end
  elseif string.lower(first(res.headers["transfer-encoding"]) or "") == "chunked" then
    local out = {}
    while true do
      local size = tonumber(string.match(sock:receive("*l") or "", "^(%x+)"), 16)
      if size == nil then return nil end
      if size == 0 then
        sock:receive("*l")
        break
      end
      out[#out + 1] = sock:receive(size)
      if out[#out] == nil or sock:receive("*l") == nil then return nil end
    end
    res.body = table.concat(out)
  end
  return res
end

-- One GET to the hop, sent once (a retried check could count one request twice), each step bounded
-- by the timeout.
local function get(target, headers)
  local sock = core.tcp()
  sock:settimeout(timeout_s)
  if not sock:connect(hop) then return nil end
  local req = { "GET " .. target .. " HTTP/1.1", "Host: admit-hop", "Connection: close" }
  for name, value in pairs(headers) do req[#req + 1] = name .. ": " .. value end
  if not sock:send(table.concat(req, "\r\n") .. "\r\n\r\n") then sock:close() return nil end
  local res = read_answer(sock)
  sock:close()
  return res
end

core.register_action("admit", { "http-req" }, function(txn, params)
  -- Built from nothing: only what Admit needs. The client's Authorization travels as
  -- X-Client-Authorization, the key; the address HAProxy saw is the X-Forwarded-For that key=ip
  -- reads (a client's own is not sent). The hop adds the gateway's key and Host.
  local headers = { ["X-Forwarded-For"] = txn.f:src() }
  local client_auth = first(txn.http:req_get_headers()["authorization"])
  if client_auth ~= nil then headers["X-Client-Authorization"] = client_auth end

  local ok, res = pcall(get, "/v1/authz?" .. params, headers)
  -- The hop's own answers (Admit unreachable, silent, its certificate refused) lack admit-hop.
  if not ok or res == nil or first(res.headers["admit-hop"]) == nil then
    txn:set_var("txn.admit_failed", 1)
    return
  end
  local status = res.status
  if status >= 200 and status < 300 then
    local rl = first(res.headers["ratelimit"])
    local rlp = first(res.headers["ratelimit-policy"])
    if rl then txn:set_var("txn.admit_ratelimit", rl) end
    if rlp then txn:set_var("txn.admit_ratelimit_policy", rlp) end
    return
  end
  local refused = first(res.headers["admit-authz-refused"]) ~= nil
  if not refused and status ~= 503 and status ~= 504 then
    -- The gateway's configuration is wrong (its key, a policy, a parameter): the operator's problem,
    -- never the client's. Logged with Admit's own words; the client gets the gateway's 500.
    txn:Warning("admit: the rate limit check is misconfigured: Admit answered " .. status .. " " .. string.sub(res.body or "", 1, 300))
    txn:set_var("txn.admit_misconfigured", status)
    return
  end
  -- Refused (or Admit's fail-closed 503/504): the client gets Admit's answer.
  local reply = txn:reply()
  reply:set_status(status)
  for _, name in ipairs(PASSED) do
    local v = first(res.headers[name])
    if v then reply:add_header(name, v) end
  end
  reply:set_body(res.body or "")
  txn:done(reply)
end, 1)
