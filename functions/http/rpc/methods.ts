// Every method of Admit's RPC entrypoint (entrypoint.ts), by name: each capability's `RPC` table
// (functions/<capability>/rpc.ts), a function of (database handle, bindings, input) → answer, so
// the methods run and are tested in Node as in workerd.
import { RPC as inventory } from "../../inventory";
import { RPC as permits } from "../../permits";
import { RPC as ratelimits } from "../../ratelimits";
import { RPC as reservations } from "../../reservations";
import { RPC as webhooks } from "../../webhooks";

export const METHODS = { ...ratelimits, ...reservations, ...permits, ...inventory, ...webhooks };

export type MethodName = keyof typeof METHODS;
