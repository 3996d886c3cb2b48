-- HAProxy (Debian's 2.6, built with Lua): every request checked by Admit's
-- /v1/authz before it goes on. No module outside Debian's package. Environment: ADMIT_ADDR
-- (host:port of Admit), ADMIT_TOKEN (the gateway's Admit key), ADMIT_TIMEOUT_MS (default 2000).
-- haproxy.cfg: `lua-load-per-thread admit.lua`, then
--   http-request lua.admit "policy=gateway-api&key=header:X-Client-Authorization&key=ip"
-- docs/gateways.md explains it; test/gateways/ runs it as it is.
--
-- Allowed: through, with txn.admit_ratelimit / txn.admit_ratelimit_policy for the response.
-- Denied: Admit's own answer (status, Retry-After, RateLimit headers, problem body) to the client.
-- Admit down or silent past the timeout: fail OPEN, through with `Admit-RateLimit-Enforced: false`
-- (set txn.admit_failed and deny on it in haproxy.cfg to fail closed instead).

local admit_host, admit_port = string.match(os.getenv("ADMIT_ADDR") or "127.0.0.1:8787", "^(.+):(%d+)$")
local admit_token = os.getenv("ADMIT_TOKEN") or ""
local timeout_s = tonumber(os.getenv("ADMIT_TIMEOUT_MS") or "2000") / 1000

-- A header's first value: HAProxy's header tables are indexed from 0.
local function first(values)
  if values == nil then return nil end
  return values[0] or values[1]
end

local PASSED = { "retry-after", "ratelimit", "ratelimit-policy", "content-type" }

-- One GET over a socket of HAProxy's own (core.tcp): sent once, each step bounded by the timeout.
-- Not core.httpclient(): 2.6's retries a request that timed out (4 connections to a silent Admit
-- were measured, 4 × the timeout), and a retried check can count one request twice.
local function get(target, headers)
  local sock = core.tcp()
  sock:settimeout(timeout_s)
  if not sock:connect(admit_host, tonumber(admit_port)) then return nil end
  local req = { "GET " .. target .. " HTTP/1.1", "Host: " .. admit_host .. ":" .. admit_port, "Connection: close" }
  for name, value in pairs(headers) do req[#req + 1] = name .. ": " .. value end
  if not sock:send(table.concat(req, "\r\n") .. "\r\n\r\n") then sock:close() return nil end
  local raw = sock:receive("*a")
  sock:close()
  if raw == nil then return nil end
  local head, body = string.match(raw, "^(.-)\r\n\r\n(.*)$")
  if head == nil then return nil end
  local status = tonumber(string.match(head, "^HTTP/1%.%d (%d%d%d)"))
  if status == nil then return nil end
  local res = { status = status, headers = {}, body = body }
  for name, value in string.gmatch(head, "\r\n([^:\r\n]+):[ \t]*([^\r\n]*)") do res.headers[string.lower(name)] = { [0] = value } end
  if string.lower(first(res.headers["transfer-encoding"]) or "") == "chunked" then
    local out, rest = {}, body
    while true do
      local size, after = string.match(rest, "^(%x+)[^\r\n]*\r\n(.*)$")
      if size == nil or tonumber(size, 16) == 0 then break end
      out[#out + 1] = string.sub(after, 1, tonumber(size, 16))
      rest = string.sub(after, tonumber(size, 16) + 3)
    end
    res.body = table.concat(out)
  end
  return res
end

core.register_action("admit", { "http-req" }, function(txn, params)
  -- Built from nothing: only what Admit needs. The gateway's key is Admit's credential; the
  -- client's Authorization travels as X-Client-Authorization, the key; the address HAProxy saw
  -- is the X-Forwarded-For that key=ip reads (a client's own X-Forwarded-For is not sent).
  local headers = { ["Authorization"] = "Bearer " .. admit_token, ["X-Forwarded-For"] = txn.f:src() }
  local client_auth = first(txn.http:req_get_headers()["authorization"])
  if client_auth ~= nil then headers["X-Client-Authorization"] = client_auth end

  local ok, res = pcall(get, "/v1/authz?" .. params, headers)
  if not ok or res == nil then
    -- Admit unreachable, or silent past the timeout.
    txn:set_var("txn.admit_failed", 1)
    return
  end
  local status = res.status
  local rl = first(res.headers["ratelimit"])
  local rlp = first(res.headers["ratelimit-policy"])
  if status >= 200 and status < 300 then
    if rl then txn:set_var("txn.admit_ratelimit", rl) end
    if rlp then txn:set_var("txn.admit_ratelimit_policy", rlp) end
    return
  end
  -- Refused (or Admit answered a problem, e.g. 503 fail-closed): the client gets Admit's answer.
  local reply = txn:reply()
  reply:set_status(status)
  for _, name in ipairs(PASSED) do
    local v = first(res.headers[name])
    if v then reply:add_header(name, v) end
  end
  reply:set_body(res.body or "")
  txn:done(reply)
end, 1)
