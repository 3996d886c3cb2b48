// A Node script using Admit's typed client (client/index.ts): book a resource, then show the refusal
// of an overlapping booking, and the same write retried with its Idempotency-Key answered once.
//
//   ADMIT=http://127.0.0.1:8787 TOKEN=$(cat .data/dev-api-token) npx tsx examples/node-client.ts
//
// Exits 0 when Admit answered as documented (201, then 409, then the replayed 201), 1 otherwise.
// test/client/client.test.ts runs it against a served app.
import { createAdmitClient, idempotencyKey, orThrow } from "@admit/client";

const baseUrl = process.env.ADMIT;
const token = process.env.TOKEN;
if (!baseUrl || !token) {
  console.error("Set ADMIT (Admit's URL) and TOKEN (its API token).");
  process.exit(2);
}

const admit = createAdmitClient({ baseUrl, token });
const resource = `example-room/${Date.now()}`; // a fresh one on every run

// 1. Book [09:00, 10:00). The key makes the write safe to retry: a 504 is retried with it, and a
//    repeat of the same request is answered from the stored response instead of running again.
const key = idempotencyKey();
const booking = { resource, holder: "alice", start: "2031-05-01T09:00:00Z", end: "2031-05-01T10:00:00Z" };
const created = orThrow(await admit.POST("/v1/reservations", { params: { header: { "Idempotency-Key": key } }, body: booking }));
console.log(`booked ${created.resource} for ${created.holder}: ${created.start} – ${created.end} (id ${created.id})`);

// 2. An overlapping booking is refused: a 409 problem naming the reservation in the way.
const clash = await admit.POST("/v1/reservations", { body: { ...booking, holder: "bob", start: "2031-05-01T09:30:00Z" } });
if (clash.response.status !== 409 || !clash.error || !("conflicts" in clash.error)) {
  console.error(`expected a 409 reservation conflict, got ${clash.response.status}`);
  process.exit(1);
}
console.log(`refused bob: ${clash.response.status} ${clash.error.title} (${clash.error.type}); in the way: ${JSON.stringify(clash.error.conflicts)}`);

// 3. The first request sent again with its key: the stored answer, not a second booking.
const again = await admit.POST("/v1/reservations", { params: { header: { "Idempotency-Key": key } }, body: booking });
const replayed = again.response.headers.get("Idempotent-Replayed") === "true" && again.data?.id === created.id;
console.log(`the same request again: ${again.response.status}, replayed: ${replayed}`);
process.exit(replayed ? 0 : 1);
