// Keys and audit handlers: validated input → sql.ts → response or problem.
import type { RouteHandler } from "@hono/zod-openapi";
import { keyCache, newSecret, START_LENGTH, secretHash } from "../core/apikeys";
import { auditEntry } from "../core/audit";
import { forbidden, invalidToken, visibleNames } from "../core/auth";
import type { AppEnv } from "../core/context";
import { notFound, problem, validationProblem } from "../core/errors";
import { covers } from "../core/scopes";
import { decodeCursor, encodeCursor, isInstant, isInt8, isUuid, namePage } from "../core/validation";
import type * as routes from "./routes";
import * as sql from "./sql";

const keyNotFound = (id: string) => notFound(`No key ${JSON.stringify(id)}.`);

/** A path id that is not a UUID names no key: 404 before the ::uuid cast could fail. */
function validId(id: string): string {
  if (!isUuid(id)) throw keyNotFound(id);
  return id;
}

export const createKey: RouteHandler<typeof routes.createKey, AppEnv> = async (c) => {
  const b = c.req.valid("json");
  const scopes = [...new Set(b.scopes)];
  const names = b.names ? [...new Set(b.names)] : null;
  const caller = c.var.caller;
  // A key makes no key with more rights than its own (Unkey's lesson: check what the key is).
  if (caller?.kind === "key" && !covers(caller.scopes, caller.names, scopes, names)) {
    throw forbidden({ scope: scopes.find((s) => !covers(caller.scopes, null, [s], null)) ?? "names beyond this key's own" });
  }
  const secret = newSecret();
  const start = secret.slice(0, START_LENGTH);
  const audit = auditEntry(caller, c.env ?? {}, "keys.create", "", {});
  const maker = caller?.kind === "key" ? caller.id : null;
  const r = await sql.createKey(c.var.db, audit, {
    maker,
    name: b.name,
    scopes,
    names,
    expiresAt: b.expires_at ?? null,
    hash: await secretHash(secret),
    start,
  });
  if (r.status === "beyond-maker") {
    const message = `must be no later than ${r.maker_expires_at}, when the key making it expires`;
    throw validationProblem(`body expires_at: ${message}`, [{ in: "body", path: "expires_at", message }]);
  }
  if (r.status !== "created") throw makerGone(maker);
  return c.json({ ...r.key, secret }, 201, { Location: `/v1/keys/${r.key.id}` });
};

/**
 * The key asking was revoked or expired by the database's clock while this isolate's cache still
 * believed it: the same 401 as any invalid key, and this isolate stops believing it now.
 */
function makerGone(maker: string | null): Error {
  if (maker) keyCache.forgetKey(maker);
  return invalidToken();
}

export const listKeys: RouteHandler<typeof routes.listKeys, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const after = q.cursor ? decodeCursor(q.cursor, (p) => p.length === 2 && isUuid(p[1]) && isInstant(p[0])) : null;
  const rows = await sql.listKeys(c.var.db, after && { at: after[0], id: after[1] }, q.limit, visibleNames(c));
  return c.json(
    namePage(rows, q.limit, (k) => encodeCursor([k.created_at, k.id])),
    200,
  );
};

export const getKey: RouteHandler<typeof routes.getKey, AppEnv> = async (c) => {
  const id = validId(c.req.valid("param").id);
  const key = await sql.getKey(c.var.db, id, visibleNames(c));
  if (!key) throw keyNotFound(id);
  return c.json(key, 200);
};

export const revokeKey: RouteHandler<typeof routes.revokeKey, AppEnv> = async (c) => {
  const id = validId(c.req.valid("param").id);
  const r = await sql.revokeKey(c.var.db, auditEntry(c.var.caller, c.env ?? {}, "keys.revoke", id, {}), id);
  if (!r) throw keyNotFound(id);
  keyCache.forgetKey(id, ...r.also_revoked);
  return c.json({ ...r.key, also_revoked: r.also_revoked }, 200);
};

export const rotateKey: RouteHandler<typeof routes.rotateKey, AppEnv> = async (c) => {
  const id = validId(c.req.valid("param").id);
  const { overlap_ms } = c.req.valid("json");
  // Rotation hands out the key's new secret: a key may rotate only keys it could have created
  // (a key's scopes and names never change, so reading them first is safe). One whose patterns are
  // not within its own it does not see at all: 404, as an unknown id.
  const caller = c.var.caller;
  if (caller?.kind === "key" && caller.id !== id) {
    const target = await sql.getKey(c.var.db, id, visibleNames(c));
    if (!target) throw keyNotFound(id);
    if (!covers(caller.scopes, caller.names, target.scopes, target.names)) {
      throw forbidden({ scope: target.scopes.find((s) => !covers(caller.scopes, null, [s], null)) ?? "names beyond this key's own" });
    }
  }
  const secret = newSecret();
  const start = secret.slice(0, START_LENGTH);
  const audit = auditEntry(c.var.caller, c.env ?? {}, "keys.rotate", id, { overlap_ms });
  const maker = caller?.kind === "key" ? caller.id : null;
  const r = await sql.rotateKey(c.var.db, audit, maker, id, await secretHash(secret), start, overlap_ms);
  if (!r) throw keyNotFound(id);
  if (r.status === "maker-gone") throw makerGone(maker);
  if (r.status === "beyond-maker") {
    throw problem("forbidden", `This key may rotate only keys that expire no later than it does (${r.maker_expires_at}).`, {
      expires_at: r.maker_expires_at,
    });
  }
  if (r.status === "gone") throw problem("conflict", `Key ${JSON.stringify(id)} is revoked or expired: create a new key.`);
  // The old secrets' cached entries end at once here; other isolates learn the overlap's end on their next look-up.
  if (overlap_ms === 0) keyCache.forgetKey(id);
  return c.json({ ...r.key, secret, old_secrets_expire_at: r.old_secrets_expire_at }, 200);
};

export const listAudit: RouteHandler<typeof routes.listAudit, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const before = q.cursor ? decodeCursor(q.cursor, (p) => p.length === 2 && isInt8(p[1]) && isInstant(p[0])) : null;
  const rows = await sql.listAudit(
    c.var.db,
    { target: q.target ?? null, key: q.key ?? null, from: q.from ?? null, to: q.to ?? null },
    before && { at: before[0], id: before[1] },
    q.limit,
    visibleNames(c),
  );
  return c.json(
    namePage(rows, q.limit, (a) => encodeCursor([a.at, String(a.id)])),
    200,
  );
};
