// `npm run test:packages` (also in .ci/run): the packages as a user gets them. Packs every workspace
// package (its prepack builds dist/), checks `npm publish --dry-run`, installs the tarballs into
// fresh directories outside the repository (one per package, timed, then one with all of them and
// Express, Fastify, Hono and TypeScript from the registry), type-checks fixtures/consumer.ts there,
// and runs against a fresh `npm start`:
//   - Express, Fastify and a wrapped fetch handler on policies of 3: 3 × 200, then 429 with
//     RateLimit, RateLimit-Policy and Retry-After; then, with Admit stopped, each policy's fail mode;
//   - a Hono Worker in workerd calling Admit over the Service Binding with @admit/hono;
//   - `admit policies apply`, `admit usage`, `admit check`, `admit keys create` with the narrowest
//     scope that checks, that key's check allowed and its policy write refused (403, exit 77);
//   - the CLI's bad inputs, each one line on stderr and its exit code.
// Prints what it measured (tarball sizes, install times) and exits 1 on the first failed expectation.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFresh } from "./examples";
import { guardProcessGroup } from "./lifeline";
import { freePort, ROOT } from "./local";
import { startWranglerDev } from "./wrangler";

const PACKAGES = ["@admit/client", "@admit/hono", "@admit/middleware", "@admit/cli"];
const FIXTURES = join(ROOT, "dev", "packages-check", "fixtures");
/** From the registry, for the apps and the type check (the packages' peers). */
const THIRD_PARTY = ["express@^5.1.0", "@types/express@^5.0.6", "fastify@^5.6.0", "hono@^4.13.0", "typescript@5.9", "@types/node@^20.19.0"];

const work = mkdtempSync(join(tmpdir(), "admit-packages-"));
const children: ChildProcess[] = [];
let failures = 0;

function log(s: string): void {
  process.stdout.write(`[packages] ${s}\n`);
}

function expectThat(ok: boolean, what: string, detail = ""): void {
  if (ok) log(`ok    ${what}`);
  else {
    failures++;
    log(`FAIL  ${what}${detail ? `\n      ${detail.replaceAll("\n", "\n      ")}` : ""}`);
  }
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 600_000,
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}

/** A fresh npm project in `dir` (outside the repository): nothing but a package.json. */
function freshProject(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `admit-packages-check-${name}`, private: true, type: "module" }, null, 2));
  return dir;
}

async function pack(): Promise<Map<string, string>> {
  const dest = join(work, "tarballs");
  mkdirSync(dest);
  const tarballs = new Map<string, string>();
  for (const name of PACKAGES) {
    const r = await run("npm", ["pack", "--workspace", name, "--pack-destination", dest, "--json"], ROOT);
    expectThat(r.code === 0, `npm pack ${name}`, r.stderr.slice(-2000));
    if (r.code !== 0) continue;
    const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as Array<{
      filename: string;
      size: number;
      unpackedSize: number;
      entryCount: number;
      files: { path: string }[];
    }>;
    tarballs.set(name, join(dest, info.filename));
    log(`size  ${name}: ${(info.size / 1024).toFixed(1)} kB packed, ${(info.unpackedSize / 1024).toFixed(1)} kB unpacked, ${info.entryCount} files`);
    expectThat(
      !info.files.some((f) => f.path.startsWith("src/") || f.path.includes("test")),
      `${name} ships no sources or tests`,
      info.files.map((f) => f.path).join(" "),
    );
    const dry = await run("npm", ["publish", "--dry-run", "--ignore-scripts", "--workspace", name], ROOT);
    // Without a login npm warns that publishing would need one; anything else it warns of is a defect.
    const warnings = dry.stderr.split("\n").filter((l) => /npm (warn|error)/i.test(l) && !/requires you to be logged in/.test(l));
    expectThat(dry.code === 0 && warnings.length === 0, `npm publish --dry-run ${name} is clean`, warnings.join("\n"));
  }
  return tarballs;
}

async function installEach(tarballs: Map<string, string>): Promise<void> {
  for (const [name, tarball] of tarballs) {
    const dir = freshProject(`alone-${name.split("/")[1]}`);
    // Until @admit/client is on the registry, the packages that depend on it get its tarball too.
    const peers = name === "@admit/hono" ? ["hono@^4.13.0"] : [];
    const client = name === "@admit/hono" || name === "@admit/middleware" ? [tarballs.get("@admit/client")!] : [];
    const r = await run("npm", ["install", "--no-audit", "--no-fund", tarball, ...client, ...peers], dir);
    expectThat(r.code === 0, `npm install ${name} alone`, r.stderr.slice(-2000));
    const extra = [...(client.length ? ["the @admit/client tarball"] : []), ...peers];
    log(`time  npm install ${name}${extra.length ? ` (+ ${extra.join(", ")})` : ""} in a fresh directory: ${(r.ms / 1000).toFixed(1)} s`);
  }
}

/** A process started in `cwd` that prints `LISTENING <port>`; resolves with its URL. */
async function app(file: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [file], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
  if (child.pid) guardProcessGroup(child.pid);
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not listen within 60 s:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const port = /LISTENING (\d+)/.exec(out)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${file} exited ${code}:\n${out}`)));
  });
}

async function get(url: string, client: string): Promise<{ status: number; headers: Headers; body: string }> {
  const res = await fetch(url, { headers: { "x-client": client }, signal: AbortSignal.timeout(60_000) });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** Three answered 200, the fourth 429 with the draft-11 headers and Retry-After. */
async function threeThen429(what: string, url: string, client: string): Promise<void> {
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await get(url, client));
  const statuses = answers.map((a) => a.status);
  expectThat(statuses.join(",") === "200,200,200,429", `${what}: 3 × 200 then 429`, `${statuses.join(",")} ${answers.at(-1)?.body}`);
  const last = answers[3];
  expectThat(
    /;r=0/.test(last.headers.get("RateLimit") ?? "") &&
      /;q=3;w=600/.test(last.headers.get("RateLimit-Policy") ?? "") &&
      Number(last.headers.get("Retry-After")) >= 1,
    `${what}: the 429 carries RateLimit, RateLimit-Policy and Retry-After`,
    JSON.stringify(Object.fromEntries(last.headers)),
  );
  expectThat(last.headers.get("content-type")?.startsWith("application/problem+json") ?? false, `${what}: the 429 is problem+json`, last.body);
  expectThat(
    /;r=2;/.test(answers[0].headers.get("RateLimit") ?? ""),
    `${what}: the first 200 carries RateLimit (2 left)`,
    answers[0].headers.get("RateLimit") ?? "",
  );
}

/** `admit …` from the fresh project's own node_modules/.bin; stdout, stderr and the exit code. */
function admitCli(dir: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return run(join(dir, "node_modules", ".bin", "admit"), args, dir, env, 120_000);
}

async function cliBadInputs(dir: string, admitUrl: string): Promise<void> {
  const closed = `http://127.0.0.1:${await freePort()}`; // nothing listens there
  writeFileSync(join(dir, "broken.json"), "{ not json");
  writeFileSync(join(dir, "wrong.json"), JSON.stringify({ policies: { p: { algorithm: "leaky", limit: 0, window_ms: 1000 } } }));
  const cases: Array<[string, string[], number, RegExp]> = [
    ["an unknown flag", ["keys", "list", "--frobnicate"], 64, /unknown option --frobnicate/],
    ["an unknown command", ["frobnicate"], 64, /unknown command "frobnicate"/],
    ["a bad URL", ["keys", "list", "--url", "not a url", "--token", "t"], 64, /is not a URL/],
    ["a wrong token", ["keys", "list", "--url", admitUrl, "--token", "admit_wrong"], 77, /refused the token \(401\)/],
    ["an unreachable host", ["keys", "list", "--url", closed, "--token", "t"], 69, /cannot reach Admit at .*ECONNREFUSED/],
    ["a policies file that is not JSON", ["policies", "plan", "--file", "broken.json", "--url", admitUrl, "--token", "t"], 65, /is not JSON/],
    ["a policies file the schema refuses", ["policies", "plan", "--file", "wrong.json", "--url", admitUrl, "--token", "t"], 65, /\/policies\/p\/algorithm/],
    ["no URL at all", ["audit", "--token", "t"], 64, /no Admit URL/],
  ];
  for (const [what, args, code, pattern] of cases) {
    const r = await admitCli(dir, args, { ADMIT_URL: "", ADMIT_TOKEN: "" });
    const lines = r.stderr.trimEnd().split("\n");
    expectThat(
      r.code === code && lines.length === 1 && pattern.test(lines[0]) && r.stdout === "",
      `admit, ${what}: exit ${code}, one line: ${lines[0]}`,
      `exit ${r.code}\n${r.stderr}${r.stdout}`,
    );
  }
}

async function main(): Promise<void> {
  log(`working in ${work} (outside the repository)`);
  const tarballs = await pack();
  if (tarballs.size !== PACKAGES.length) throw new Error("not every package packed");
  await installEach(tarballs);

  const dir = freshProject("all");
  const install = await run("npm", ["install", "--no-audit", "--no-fund", ...tarballs.values(), ...THIRD_PARTY], dir);
  expectThat(install.code === 0, "npm install of every tarball with express, fastify, hono, typescript", install.stderr.slice(-2000));
  log(`time  npm install of all four tarballs and ${THIRD_PARTY.length} registry packages: ${(install.ms / 1000).toFixed(1)} s`);
  const linked = await run("npm", ["ls", "--all", "--parseable"], dir);
  expectThat(
    !linked.stdout.includes(ROOT),
    "nothing installed links into the repository",
    linked.stdout
      .split("\n")
      .filter((l) => l.includes(ROOT))
      .join("\n"),
  );

  cpSync(FIXTURES, dir, { recursive: true });
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: ["node"] },
      files: ["consumer.ts"],
    }),
  );
  const tsc = await run(process.execPath, [join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", "."], dir);
  expectThat(tsc.code === 0, "consumer.ts type-checks against every package (NodeNext, strict)", tsc.stdout + tsc.stderr);

  const registry = join(work, "registry");
  const admit = await startFresh(240_000, { WRANGLER_REGISTRY_PATH: registry });
  try {
    const env = { ADMIT_URL: admit.admit, ADMIT_TOKEN: admit.token };
    await cliBadInputs(dir, admit.admit);
    const apply = await admitCli(dir, ["policies", "apply", "--file", "policies.json"], env);
    expectThat(apply.code === 0 && /Applied 4 change/.test(apply.stdout), "admit policies apply --file policies.json", apply.stdout + apply.stderr);

    const express = await app("express-app.mjs", dir, { ...env, POLICY: "pk-express" });
    const fastify = await app("fastify-app.mjs", dir, { ...env, POLICY: "pk-fastify" });
    const fetchApp = await app("fetch-app.mjs", dir, { ...env, POLICY: "pk-fetch" });
    await threeThen429("Express", `${express}/api/hello`, "alice");
    await threeThen429("Fastify", `${fastify}/api/hello`, "alice");
    await threeThen429("fetch handler", `${fetchApp}/api/hello`, "alice");

    const worker = await startWranglerDev({
      config: join(dir, "worker", "wrangler.toml"),
      vars: {},
      env: { WRANGLER_REGISTRY_PATH: registry, WRANGLER_BUILD_CONDITIONS: "workerd,worker,browser" },
    });
    try {
      await threeThen429("Hono Worker in workerd over the Service Binding", `${worker.url}/api/hello`, "alice");
      const peek = await get(`${worker.url}/peek`, "x");
      expectThat(peek.status === 200 && JSON.parse(peek.body).allowed === true, "admit(env.ADMIT).checkRateLimit() from the Worker", peek.body);
    } finally {
      await worker.stop();
    }

    const usage = await admitCli(dir, ["usage", "pk-express", "alice", "--json"], env);
    const u = usage.code === 0 ? JSON.parse(usage.stdout) : {};
    expectThat(u.admitted === 3 && u.rejected === 1, "admit usage pk-express alice: 3 admitted, 1 rejected", usage.stdout + usage.stderr);
    const usageTable = await admitCli(dir, ["usage", "pk-express", "alice"], env);
    expectThat(usageTable.code === 0 && /^admitted\s+3$/m.test(usageTable.stdout), "admit usage for people: a table", usageTable.stdout);
    const check = await admitCli(dir, ["check", "pk-express", "bob"], env);
    expectThat(check.code === 0 && /^allowed\s+true$/m.test(check.stdout), "admit check pk-express bob: allowed, exit 0", check.stdout + check.stderr);
    const denied = await admitCli(dir, ["check", "pk-express", "alice"], env);
    expectThat(denied.code === 2 && /^allowed\s+false$/m.test(denied.stdout), "admit check pk-express alice: denied, exit 2", denied.stdout + denied.stderr);

    const created = await admitCli(dir, ["keys", "create", "--name", "packages-check", "--scope", "ratelimits:check", "--names", "pk-*", "--json"], env);
    const key = created.code === 0 ? JSON.parse(created.stdout) : {};
    expectThat(
      typeof key.secret === "string" && key.scopes?.join() === "ratelimits:check",
      "admit keys create --scope ratelimits:check",
      created.stdout + created.stderr,
    );
    const keyEnv = { ADMIT_URL: admit.admit, ADMIT_TOKEN: key.secret };
    const keyCheck = await admitCli(dir, ["check", "pk-express", "carol"], keyEnv);
    expectThat(keyCheck.code === 0, "the ratelimits:check key checks", keyCheck.stdout + keyCheck.stderr);
    const put = await fetch(`${admit.admit}/v1/ratelimits/policies/pk-express`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${key.secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ algorithm: "fixed_window", limit: 1000, window_ms: 1000 }),
    });
    const putBody = await put.text();
    expectThat(
      put.status === 403 && /ratelimits:admin/.test(putBody),
      "the ratelimits:check key's PUT of a policy: 403 naming ratelimits:admin",
      `${put.status} ${putBody}`,
    );
    const write = await admitCli(dir, ["policies", "apply", "--file", "policies.json"], keyEnv);
    const writeLines = write.stderr.trimEnd().split("\n");
    expectThat(
      write.code === 77 && writeLines.length === 1 && /403/.test(writeLines[0]),
      `admit policies apply with the ratelimits:check key: exit 77, ${writeLines[0]}`,
      write.stdout + write.stderr,
    );
    const listed = await admitCli(dir, ["keys", "list"], env);
    expectThat(
      listed.code === 0 && /^ID\s+NAME\s+SCOPES/m.test(listed.stdout) && listed.stdout.includes("packages-check"),
      "admit keys list: a table",
      listed.stdout,
    );

    // Admit stopped: each middleware answers its policy's fail mode (learnt from the policy).
    await admit.stop();
    const open = await get(`${express}/api/hello`, "dave");
    expectThat(
      open.status === 200 && /^false/.test(open.headers.get("Admit-RateLimit-Enforced") ?? ""),
      "Express, Admit stopped, policy on_unavailable allow: 200 with Admit-RateLimit-Enforced: false",
      `${open.status} ${open.body}`,
    );
    const closed = await get(`${fastify}/api/hello`, "dave");
    expectThat(
      closed.status === 503 && Number(closed.headers.get("Retry-After")) >= 1,
      "Fastify, Admit stopped, policy on_unavailable deny: 503 + Retry-After",
      `${closed.status} ${closed.body}`,
    );
    const fetchOpen = await get(`${fetchApp}/api/hello`, "dave");
    expectThat(
      fetchOpen.status === 200 && fetchOpen.headers.get("Admit-RateLimit-Enforced") !== null,
      "fetch handler, Admit stopped, policy allow: 200, not enforced",
      `${fetchOpen.status} ${fetchOpen.body}`,
    );
  } finally {
    await admit.stop();
  }
}

main()
  .catch((err) => {
    failures++;
    log(`FAIL  ${String((err as Error)?.stack ?? err)}`);
  })
  .finally(() => {
    for (const c of children)
      if (c.pid)
        try {
          process.kill(-c.pid, "SIGKILL");
        } catch {
          /* gone */
        }
    if (failures === 0) rmSync(work, { recursive: true, force: true });
    log(failures ? `${failures} expectation(s) failed; kept ${work}` : "every expectation held");
    process.exit(failures ? 1 : 0);
  });
