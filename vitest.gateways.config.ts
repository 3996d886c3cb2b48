// `npm run test:gateways`: the real gateways (Debian's nginx, Caddy, HAProxy) in front of Admit,
// test/gateways/. Not part of `npm test`, which needs npm alone; .ci/run installs the three and runs it.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

export default defineConfig({ ...base, test: { ...base.test, include: ["test/gateways/**/*.test.ts"], exclude: ["**/node_modules/**"] } });
