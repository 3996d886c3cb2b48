// A key look-up in flight when this isolate revokes the key: Postgres has answered it (the key was
// valid then) but the answer has not reached the Worker. The DELETE answers, then the look-up's
// answer arrives. A request with the key after the DELETE is refused at once, and the late answer is
// not cached (docs/api-keys.md: "at once in the isolate that answered the DELETE").
//
// The look-up is held deterministically: the app reaches Postgres through a TCP relay that keeps
// Postgres's answer to the statement calling admit_key_lookup until the test lets it go.
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindings, client, freshDatabase, type Served, serveApp } from "../support";

interface Hold {
  /** Resolves once Postgres has answered the held statement (its ReadyForQuery is in hand: committed). */
  answered: Promise<void>;
  /** Passes the held answer on; the connection relays normally from then on. */
  release(): void;
}

/** A relay to Postgres that can hold the answer to the next statement containing a given text. */
async function holdingRelay(databaseUrl: string) {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let armed: { match: Buffer; hold: (down: Socket) => { onAnswer(chunk: Buffer): void } } | undefined;
  const server: Server = createServer((down) => {
    const up = tcpConnect(Number(target.port), target.hostname);
    sockets.add(down).add(up);
    let holding: { onAnswer(chunk: Buffer): void } | undefined;
    down.on("data", (chunk: Buffer) => {
      if (armed && chunk.includes(armed.match)) {
        holding = armed.hold(down);
        armed = undefined;
      }
      up.write(chunk);
    });
    up.on("data", (chunk: Buffer) => (holding ? holding.onAnswer(chunk) : down.write(chunk)));
    down.on("close", () => up.destroy());
    up.on("close", () => down.destroy());
    for (const s of [up, down]) s.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(databaseUrl);
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    holdNext(text: string): Hold {
      let answered!: () => void;
      let release!: () => void;
      const hold: Hold = { answered: new Promise<void>((r) => (answered = r)), release: () => release() };
      armed = {
        match: Buffer.from(text),
        hold: (down) => {
          const held: Buffer[] = [];
          let released = false;
          release = () => {
            released = true;
            down.write(Buffer.concat(held));
          };
          return {
            onAnswer(chunk) {
              if (released) return void down.write(chunk);
              held.push(chunk);
              if (hasReadyForQuery(Buffer.concat(held))) answered();
            },
          };
        },
      };
      return hold;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Whether the backend messages in `buf` (type byte, int32 length, body) include ReadyForQuery ('Z'). */
function hasReadyForQuery(buf: Buffer): boolean {
  for (let at = 0; at + 5 <= buf.length; at += 1 + buf.readInt32BE(at + 1)) if (buf[at] === 0x5a) return true;
  return false;
}

let relay: Awaited<ReturnType<typeof holdingRelay>>;
let served: Served;

beforeAll(async () => {
  relay = await holdingRelay(await freshDatabase("keys_inflight"));
  // A generous budget: the held look-up must not be given up while the test revokes the key.
  served = await serveApp(bindings(relay.url, { DB_BUDGET_MS: "60000" }));
}, 120_000);

afterAll(async () => {
  await served?.close();
  await relay?.close();
});

describe("a look-up in flight when this isolate revokes the key", () => {
  it("is not believed: a request after the DELETE is refused at once, and still after the late answer arrives", async () => {
    const root = client(served.url);
    const created = await root("POST", "/v1/keys", { name: "inflight", scopes: ["ratelimits:read"] });
    expect(created.status, created.text).toBe(201);
    const key = client(served.url, created.json.secret);

    const hold = relay.holdNext("admit_key_lookup");
    const first = key("GET", "/v1/ratelimits/policies"); // a cache miss: its look-up is held
    await hold.answered; // Postgres said "valid"; the Worker has not heard it
    expect((await root("DELETE", `/v1/keys/${created.json.id}`)).status).toBe(200);

    // Asked after the DELETE answered, while the older look-up is still held: refused at once.
    const during = await key("GET", "/v1/ratelimits/policies");
    expect(during.status, during.text).toBe(401);

    hold.release();
    // The first request was asked before the revocation: whatever it answers is right. Its look-up's
    // answer ("valid") has now reached this isolate, and must not have been kept.
    await first;
    const after = await key("GET", "/v1/ratelimits/policies");
    expect(after.status, after.text).toBe(401);
  }, 120_000);
});
