// `npm run demo`: the reservation race (ten identical bookings at once) against the running stack (`npm start` in another terminal).
// Ten simultaneous requests reserve server 345 in datacenter 223 for the same dates; exactly one
// may win. The naive check-then-insert of the seed lets all ten in; Admit lets one.
import { fnv64, lockKey } from "../functions/core/lock-keys";
import { devToken } from "./local";

const base = (process.env.ADMIT_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`).replace(/\/$/, "");
const token = devToken({ create: false }) ?? "";

async function main(): Promise<void> {
  try {
    await fetch(base + "/health", { signal: AbortSignal.timeout(5_000) });
  } catch {
    console.error(`Nothing answers at ${base}. Start the stack first with \`npm start\` (or set ADMIT_URL and API_TOKEN).`);
    process.exit(1);
  }
  // A resource of its own each run, so the demo can be replayed and shows the same thing every time.
  const resource = `223 345 (demo ${new Date().toISOString()})`;
  const body = { resource, start: "2021-01-01T14:45:00Z", end: "2021-01-04T14:45:00Z" };
  console.log(`The reservation race: 10 simultaneous POST /v1/reservations for ${JSON.stringify(body.resource)}, ${body.start} → ${body.end}`);
  console.log(`(the seed locked fnv64("223 345") = ${fnv64("223 345")}; Admit namespaces it: fnv64("reservation/…") = ${lockKey("reservation", resource)})\n`);

  const results = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const holder = `user-${Math.floor(Math.random() * 10_000)}`;
      const started = performance.now();
      const res = await fetch(base + "/v1/reservations", {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ ...body, holder }),
      });
      const json = (await res.json()) as Record<string, any>;
      return { i, holder, status: res.status, json, ms: performance.now() - started };
    }),
  );

  if (results.some((r) => r.status === 401)) {
    console.error("401: the API token was refused. Set API_TOKEN to the token `npm start` printed.");
    process.exit(1);
  }
  for (const r of results) {
    const what =
      r.status === 201
        ? `created ${r.json.id}`
        : r.status === 409
          ? `refused: overlaps ${r.json.conflicts?.map((c: { holder: string }) => c.holder).join(", ")}`
          : `${r.json.title ?? "error"}: ${r.json.detail ?? ""}`;
    console.log(`  request ${String(r.i + 1).padStart(2)}  ${r.holder.padEnd(10)}  ${r.status}  ${what}  (${r.ms.toFixed(0)} ms)`);
  }
  const created = results.filter((r) => r.status === 201).length;
  const refused = results.filter((r) => r.status === 409).length;
  console.log(`\n${created} created, ${refused} refused${created + refused < 10 ? `, ${10 - created - refused} other` : ""}.`);

  const list = await fetch(`${base}/v1/reservations?resource=${encodeURIComponent(resource)}`, { headers: { Authorization: `Bearer ${token}` } });
  const items = ((await list.json()) as { items: unknown[] }).items;
  console.log(`The database holds ${items.length} active reservation(s) for it (the seed's naive version ends with 10).`);
  process.exit(created === 1 && items.length === 1 ? 0 : 1);
}

void main();
