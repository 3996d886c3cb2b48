// The examples of the key management and audit operations in /openapi.json, by operationId
// (functions/http/examples.ts applies them to the document; test/docs/openapi.examples.test.ts checks
// each against its schema).
import { ID, LATER, NOW, type OperationExamples } from "../core/examples";

const apiKey = {
  id: ID,
  name: "gateway-eu",
  scopes: ["ratelimits:check"],
  names: ["gw-*"],
  created_at: NOW,
  expires_at: null,
  revoked_at: null,
  last_used_at: LATER,
  made_by: null,
  secrets: [{ start: "admit_Q3vX9k", created_at: NOW, expires_at: null }],
};
const SECRET = "admit_Q3vX9kLw0b2mJr8TfN4eYpZs6HcVgUd1AxKqWn7oRiE";
const noKey = { detail: `No key "${ID}".` };
export const KEY_EXAMPLES: Record<string, OperationExamples> = {
  createKey: {
    request: { name: "gateway-eu", scopes: ["ratelimits:check"], names: ["gw-*"] },
    responses: { 201: { ...apiKey, last_used_at: null, secret: SECRET } },
  },
  listKeys: { params: { limit: 100 }, responses: { 200: { items: [apiKey], next_cursor: null } } },
  getKey: { params: { id: ID }, responses: { 200: apiKey }, problems: { 404: noKey } },
  revokeKey: { params: { id: ID }, responses: { 200: { ...apiKey, revoked_at: LATER, also_revoked: [] } }, problems: { 404: noKey } },
  rotateKey: {
    params: { id: ID },
    request: { overlap_ms: 3600000 },
    responses: {
      200: {
        ...apiKey,
        secrets: [
          { start: "admit_Q3vX9k", created_at: NOW, expires_at: "2030-04-30T13:00:30.000Z" },
          { start: "admit_7PzLm2", created_at: LATER, expires_at: null },
        ],
        secret: "admit_7PzLm2Yh5cRt9QwXe3NbVa8Ks1DfGj4UoI6lMpZyC0T",
        old_secrets_expire_at: "2030-04-30T13:00:30.000Z",
      },
    },
    problems: { 404: noKey, 409: { type: "/problems/conflict", title: "Conflict", detail: `Key "${ID}" is revoked or expired: create a new key.` } },
  },
  listAudit: {
    params: { target: "api", limit: 100 },
    responses: {
      200: {
        items: [
          {
            id: 1207,
            at: NOW,
            key: { id: ID, name: "ops" },
            action: "ratelimits.policy.put",
            target: "api",
            change: { algorithm: "sliding_window", limit: 100, window_ms: 60000 },
          },
        ],
        next_cursor: null,
      },
    },
  },
};
