// Traefik's ForwardAuth and Envoy's ext_authz (HTTP mode) are not packaged in Debian, so the suite
// cannot run them (nginx, Caddy and HAProxy run for real in test/gateways/). Instead this sends
// Admit exactly the requests their configurations in examples/gateways/ make them send — method,
// path, headers, as read from their sources (traefik pkg/middlewares/auth/forward.go; envoy
// ext_authz raw_http client) — with the values taken from the example files themselves, and checks
// what the gateway would do with each answer.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../../dev/local";
import { servedApp, TOKEN } from "../support";

const suite = servedApp("ratelimits_authz_gateways");
const example = (name: string) => parse(readFileSync(join(ROOT, "examples", "gateways", name), "utf8"));
const LONG = 366 * 86_400_000;

beforeAll(async () => {
  const res = await suite.api("PUT", "/v1/ratelimits/policies/gateway-api", { algorithm: "fixed_window", limit: 20, window_ms: LONG, timeout_ms: 60_000 });
  expect(res.status).toBe(201);
});

async function send(method: string, pathAndQuery: string, headers: Record<string, string>) {
  const res = await fetch(suite.server.url + pathAndQuery, { method, headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("Traefik ForwardAuth (examples/gateways/traefik.yml)", () => {
  const conf = example("traefik.yml").http;
  const address = new URL(conf.middlewares["admit-check"].forwardAuth.address);
  const keyHeader = conf.middlewares["admit-key"].headers.customRequestHeaders.Authorization.replace("ADMIT_TOKEN", TOKEN);

  /** What ForwardAuth sends for a client's request: GET to the address, the client's headers, X-Forwarded-*. */
  function traefikCheck(client: { method: string; uri: string; headers: Record<string, string>; ip: string }) {
    const headers: Record<string, string> = { ...client.headers };
    headers.Authorization = keyHeader; // the admit-key middleware ran before the check
    headers["X-Forwarded-Method"] = client.method;
    headers["X-Forwarded-Proto"] = "http";
    headers["X-Forwarded-Host"] = "api.example";
    headers["X-Forwarded-Uri"] = client.uri;
    headers["X-Forwarded-For"] = client.ip; // trustForwardHeader: false → the client's own is replaced
    return send("GET", address.pathname + address.search, headers);
  }

  it("the chain puts the gateway's key on the check and takes it off before the API", () => {
    expect(conf.routers.api.middlewares).toEqual(["admit-key", "admit-check", "admit-key-strip"]);
    expect(conf.middlewares["admit-key-strip"].headers.customRequestHeaders.Authorization).toBe("");
    expect(conf.middlewares["admit-check"].forwardAuth.authResponseHeaders).toEqual(["RateLimit", "RateLimit-Policy"]);
  });

  it("20 of 25 through (2xx), then Admit's 429 with Retry-After and the RateLimit headers, which Traefik hands the client as they are", async () => {
    const answers = [];
    for (let i = 0; i < 25; i++)
      answers.push(
        await traefikCheck({
          method: "POST",
          uri: "/api/orders?policy=other&cost=0",
          headers: { "X-Api-Key": "traefik-client", "X-Forwarded-For": "6.6.6.6" },
          ip: "192.0.2.80",
        }),
      );
    expect(answers.filter((a) => a.status === 200).length).toBe(20);
    const denied = answers.filter((a) => a.status === 429);
    expect(denied.length).toBe(5);
    expect(Number(denied[0].headers.get("retry-after"))).toBeGreaterThan(0);
    expect(denied[0].headers.get("ratelimit-policy")).toBe(`"gateway-api";q=20;w=${LONG / 1000}`);
    expect(JSON.parse(denied[0].text)).toMatchObject({ type: "/problems/rate-limited", key: "x-api-key:traefik-client" });
    expect(answers[0].headers.get("ratelimit")).toMatch(/^"gateway-api";r=19;t=\d+$/);
    // Without the API key header: keyed by the address Traefik saw, not the one the client wrote.
    const byIp = await traefikCheck({ method: "GET", uri: "/", headers: { "X-Forwarded-For": "6.6.6.6" }, ip: "192.0.2.81" });
    expect(JSON.parse(byIp.text).key).toBe("ip:192.0.2.81");
  });
});

describe("Envoy ext_authz HTTP (examples/gateways/envoy.yaml)", () => {
  const hcm = example("envoy.yaml").static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  const authz = hcm.http_filters.find((f: { name: string }) => f.name === "envoy.filters.http.ext_authz").typed_config;
  const service = authz.http_service;
  const added: Record<string, string> = Object.fromEntries(
    service.authorization_request.headers_to_add.map((h: { key: string; value: string }) => [h.key, h.value.replace("ADMIT_TOKEN", TOKEN)]),
  );
  const allowed: string[] = service.authorization_request.allowed_headers.patterns.map((p: { exact: string }) => p.exact);

  /**
   * What Envoy sends: the original method, path_prefix + the original path and query, Host,
   * Content-Length 0, the client's Authorization and the allowed headers, then headers_to_add
   * (which override a client's of the same name). X-Forwarded-For has the peer appended
   * (use_remote_address).
   */
  function envoyCheck(client: { method: string; path: string; headers: Record<string, string>; ip: string }) {
    const headers: Record<string, string> = { "Content-Length": "0" };
    for (const [name, value] of Object.entries(client.headers))
      if (allowed.includes(name.toLowerCase()) || name.toLowerCase() === "authorization") headers[name] = value;
    headers["x-forwarded-for"] = client.headers["X-Forwarded-For"] ? `${client.headers["X-Forwarded-For"]}, ${client.ip}` : client.ip;
    for (const [name, value] of Object.entries(added)) {
      for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
      headers[name] = value;
    }
    return send(client.method, service.path_prefix + client.path, headers);
  }

  it("fails closed and uses Admit's path prefix", () => {
    expect(authz.failure_mode_allow).toBe(false);
    expect(service.path_prefix).toBe("/v1/authz");
    expect(hcm.use_remote_address).toBe(true);
  });

  it("the original method and path below the prefix; the client's query and Authorization are not Admit's; only the 20 are 200", async () => {
    const answers = [];
    for (let i = 0; i < 25; i++) {
      answers.push(
        await envoyCheck({
          method: i % 2 ? "POST" : "DELETE",
          // The client's query names a roomy policy and a zero cost: Admit never reads it here.
          path: "/api/orders/7?policy=other&key=ip&cost=0",
          headers: { "X-Api-Key": "envoy-client", Authorization: "Bearer the-clients-own", "X-Forwarded-For": "6.6.6.6" },
          ip: "192.0.2.90",
        }),
      );
    }
    expect(answers.filter((a) => a.status === 200).length).toBe(20);
    const denied = answers.filter((a) => a.status !== 200);
    expect(denied.map((a) => a.status)).toEqual([429, 429, 429, 429, 429]);
    expect(Number(denied[0].headers.get("retry-after"))).toBeGreaterThan(0);
    expect(denied[0].headers.get("ratelimit")).toMatch(/^"gateway-api";r=0;t=\d+$/);
    expect(JSON.parse(denied[0].text)).toMatchObject({ key: "x-api-key:envoy-client", policy: "gateway-api" });
    // No API key: the peer Envoy appended, not the client's X-Forwarded-For.
    const byIp = await envoyCheck({ method: "GET", path: "/", headers: { "X-Forwarded-For": "6.6.6.6" }, ip: "192.0.2.91" });
    expect(byIp.status).toBe(200);
    expect(JSON.parse(byIp.text).key).toBe("ip:192.0.2.91");
  });
});
