// One POST on a TCP connection of its own, as a thousand different clients would send it, bounded in
// time. A pooled keep-alive connection that the server closes between two requests fails the client
// ("other side closed"), not the request: a burst that judges the server sends each request alone.
import http from "node:http";
import { TOKEN } from "./index";

export interface OwnAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** POST `body` as JSON to `base` + `path` with the suite's token, on a connection of its own; no answer within 60 s rejects. */
export function postAlone(base: string, path: string, body: unknown): Promise<OwnAnswer> {
  const url = new URL(path, base);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: "POST",
        agent: false,
        timeout: 60_000,
        headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: text.startsWith("{") ? JSON.parse(text) : undefined }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer to POST ${path} within 60 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}
