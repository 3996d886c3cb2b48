// Helpers of the forwarding suites: a real HTTP target on loopback that records every request and
// answers as a test scripts it, verified with the `standardwebhooks` library as a team's endpoint
// would; a source set to forward to it; signed deliveries from a sender.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { client } from "../support";
import { newSecret, signedHeaders } from "./webhooks.support";

export interface Received {
  /** webhook-id */
  id: string;
  timestamp: string;
  signature: string;
  attempt: string | null;
  body: string;
  /** Whether `standardwebhooks`' verify accepted it with the target's secret. */
  verified: boolean;
  /** When the request arrived and when its answer was finished (ms, this process's clock). */
  at: number;
  done: number | null;
}

/** What the target does with one request: answer `status` (after `delayMs`), with `headers`; `hang`: never answer. */
export interface Answer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  hang?: boolean;
}

export interface Target {
  url: string;
  secret: string;
  received: Received[];
  /** Requests being handled right now, per webhook-id (never above 1 if no event is in flight twice). */
  maxConcurrentPerId: number;
  setSecret(secret: string): void;
  close(): Promise<void>;
}

/** A loopback HTTP target (on `port`, 0: a free one); `answer(r, nth)` decides each answer (`nth`: how many requests of that webhook-id came before, 0 first). */
export async function startTarget(answer: (r: Received, nth: number) => Answer = () => ({ status: 200 }), secret = newSecret(), port = 0): Promise<Target> {
  const received: Received[] = [];
  const active = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const t = { secret, received, maxConcurrentPerId: 0 } as Target;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const h = (n: string) => (req.headers[n] as string | undefined) ?? "";
      let verified = false;
      try {
        new Webhook(t.secret).verify(body, {
          "webhook-id": h("webhook-id"),
          "webhook-timestamp": h("webhook-timestamp"),
          "webhook-signature": h("webhook-signature"),
        });
        verified = true;
      } catch {
        verified = false;
      }
      const r: Received = {
        id: h("webhook-id"),
        timestamp: h("webhook-timestamp"),
        signature: h("webhook-signature"),
        attempt: h("webhook-attempt") || null,
        body,
        verified,
        at: Date.now(),
        done: null,
      };
      const nth = received.filter((x) => x.id === r.id).length;
      received.push(r);
      const now = (active.get(r.id) ?? 0) + 1;
      active.set(r.id, now);
      t.maxConcurrentPerId = Math.max(t.maxConcurrentPerId, now);
      const a = answer(r, nth);
      const finish = () => {
        active.set(r.id, (active.get(r.id) ?? 1) - 1);
        r.done = Date.now();
      };
      if (a.hang) {
        hanging.add(res);
        res.on("close", finish);
        return;
      }
      if (a.delayMs) await new Promise((x) => setTimeout(x, a.delayMs));
      finish();
      res.writeHead(a.status, { "content-type": "text/plain", ...a.headers });
      res.end(`answer ${a.status} to ${r.id}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  t.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  t.setSecret = (s: string) => {
    t.secret = s;
  };
  t.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return t;
}

type Api = ReturnType<typeof client>;

/** Registers `source` (a Standard Webhooks sender with `secret`) forwarding to `target`; returns the PUT's answer. */
export async function forwardTo(
  api: Api,
  source: string,
  secret: string,
  target: Target,
  forward: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  const r = await api("PUT", `/v1/webhooks/sources/${source}`, { secret, ...extra, forward: { url: target.url, secret: target.secret, ...forward } });
  if (r.status !== 201 && r.status !== 200) throw new Error(`PUT source ${source}: ${r.status} ${r.text}`);
  return r;
}

/** A signed Standard Webhooks delivery of `payload` to `source` (no bearer token). */
export async function deliver(anon: Api, source: string, secret: string, id: string, payload: unknown, nowS: number) {
  const body = JSON.stringify(payload);
  return anon("POST", `/v1/webhooks/${source}`, body, signedHeaders([secret], id, nowS, body));
}
