// Sending the generated requests: through fetch, through node:http (any method, or a path sent as
// is), each counted, and a request described for a failure message.
import { request as httpRequest } from "node:http";
import type { Sent } from "./requests";

let sent = 0;
/** Requests sent through this module so far. */
export const requestsSent = () => sent;

/** One request through fetch; its answer's status, headers of interest, text and JSON (when it parses). */
export async function exchange(r: Sent) {
  sent += 1;
  const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body as BodyInit | undefined, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, type: res.headers.get("content-type"), retryAfter: res.headers.get("retry-after"), allow: res.headers.get("allow"), text, json };
}

/** One request through node:http, which (unlike fetch) sends any method Node's parser knows, TRACE included. */
export function rawExchange(method: string, url: string, headers: Record<string, string>) {
  sent += 1;
  return new Promise<{ status: number; type: string | null; allow: string | null; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"] ?? null,
          allow: (res.headers.allow as string | undefined) ?? null,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${url}: no answer in 15 s`)));
    req.on("error", reject);
    req.end();
  });
}

/**
 * One request to `path` on `baseUrl`'s server with the path sent exactly as given (curl --path-as-is):
 * node:http, unlike fetch, does not resolve its "." and ".." segments.
 */
export async function pathAsIs(baseUrl: string, method: string, path: string, headers: Record<string, string>, body: string | undefined) {
  const { hostname, port } = new URL(baseUrl);
  const res = await new Promise<{ status: number; type: string | null; allow: string | null; text: string }>((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method, headers }, (r) => {
      const chunks: Buffer[] = [];
      r.on("data", (c: Buffer) => chunks.push(c));
      r.on("end", () =>
        resolve({
          status: r.statusCode ?? 0,
          type: r.headers["content-type"] ?? null,
          allow: (r.headers.allow as string | undefined) ?? null,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
  sent++;
  return res;
}

/** The request, cut short, as a failure message names it. */
export const describeRequest = (r: Sent) =>
  `${r.method} ${r.url.slice(0, 300)} ${JSON.stringify(r.headers).slice(0, 200)} body=${typeof r.body === "string" ? JSON.stringify(r.body.slice(0, 300)) : r.body ? `bytes(${r.body.length})` : "none"}`;
