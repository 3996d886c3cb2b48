// The API reference page (/docs: public/docs.html, Scalar's bundle served as a Workers static
// asset) in a real browser — Chromium (findChromium: the one npm ci installs, unless told
// otherwise) driven by puppeteer-core — against the Worker in the Workers runtime (wrangler dev) on
// its own database: it renders, its sidebar names every operation
// of /openapi.json distinctly, it loads nothing from anywhere but the Worker, and the curl example
// it shows for an operation works when run as shown (with the real token).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../dev/local";
import { type BrowserSession, findChromium, launchBrowser, TOKEN, workerSuite } from "../support";

const SCREENSHOT = join(ROOT, "test", "screenshots", "docs.png");
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

const suite = workerSuite("docs_browser");
let browser: Browser;
let page: Page;
/** Every URL the page asked for, from the first navigation on. */
let requested: BrowserSession["requested"];
let failed: BrowserSession["failed"];
/** Errors the page logged (a Content-Security-Policy violation among them). */
let consoleErrors: BrowserSession["consoleErrors"];
let doc: any;

beforeAll(async () => {
  await findChromium(); // no browser: fail now, saying why, before anything else is started
  doc = await (await fetch(`${suite.worker.url}/openapi.json`)).json();
  ({ browser, page, requested, failed, consoleErrors } = await launchBrowser({ viewport: { width: 1400, height: 1000 } }));
  await page.goto(`${suite.worker.url}/docs`, { waitUntil: "networkidle0", timeout: 60_000 });
  // Rendered: the sidebar has an entry per operation (Scalar lists them once /openapi.json is loaded).
  await page.waitForSelector('li[data-sidebar-id*="/tag/"][data-sidebar-id*="/POST/"]', { timeout: 60_000 });
}, 120_000);

afterAll(async () => browser?.close());

/** "METHOD /path" of every operation in the document. */
const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );

describe("the API reference page (/docs) in Chromium", { timeout: 120_000 }, () => {
  it("is served by the Worker as HTML and renders the API title", async () => {
    const res = await fetch(`${suite.worker.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    // The Worker's root still points readers here.
    expect(await (await fetch(`${suite.worker.url}/`)).json()).toMatchObject({ docs: "/docs", openapi: "/openapi.json" });
    expect(await page.title()).toBe("Admit API reference");
    const heading = await page.$eval("h1", (h) => h.textContent?.trim());
    expect(heading).toBe(doc.info.title);
  });

  it("the sidebar lists every operation of /openapi.json, each under a label of its own", async () => {
    // Scalar's sidebar entries carry "<document>/tag/<tag>/<METHOD><path>" in data-sidebar-id.
    const all = await page.$$eval('li[data-sidebar-id*="/tag/"]', (lis) =>
      lis
        .map((li) => ({
          id: li.getAttribute("data-sidebar-id")!,
          // biome-ignore lint/performance/useDomNodeTextContent: innerText is the label as a person sees it (hidden text left out)
          label: (li.querySelector("button") as HTMLElement | null)?.innerText.replace(/\s+/g, " ").trim() ?? "",
        }))
        .filter((e) => /\/(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS)\//.test(e.id)),
    );
    // One entry per id (Scalar may render a tag's only operation twice: as the tag's own link and in its list).
    const entries = [...new Map(all.map((e) => [e.id, e])).values()];
    const listed = entries.map((e) => e.id.replace(/^.*?\/tag\/[^/]+\/([A-Z]+)(\/.*)$/, "$1 $2"));
    expect([...listed].sort()).toEqual(operations().sort());
    const labels = entries.map((e) => e.label);
    expect(labels.every((l) => l.length > 0)).toBe(true);
    const repeated = labels.filter((l, i) => labels.indexOf(l) !== i);
    expect(repeated, "sidebar labels shown more than once").toEqual([]);
    // The label is the operation's summary (and its method badge).
    for (const e of entries) {
      const [, method, path] = e.id.match(/\/tag\/[^/]+\/([A-Z]+)(\/.*)$/)!;
      expect(e.label).toContain(doc.paths[path][method.toLowerCase()].summary);
    }
  });

  it("loads nothing from anywhere but the Worker (no CDN, fonts, proxy or telemetry), and nothing fails", async () => {
    const origin = new URL(suite.worker.url).origin;
    expect(requested.length).toBeGreaterThan(0);
    const external = requested.filter((u) => !u.startsWith("data:") && !u.startsWith("blob:") && new URL(u).origin !== origin);
    expect(external).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${origin}/docs`, `${origin}/scalar/standalone.js`, `${origin}/openapi.json`]));
    expect(failed).toEqual([]);
    expect(consoleErrors).toEqual([]);
    // And the browser is told so: the page's Content-Security-Policy allows this origin only (public/_headers).
    const csp = (await fetch(`${suite.worker.url}/docs`)).headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
  });

  it("the curl example the page shows for creating a reservation works against the stack", async () => {
    // Open the operation from the sidebar, as a reader would, and take the snippet as shown.
    const id = "tag/reservations/POST/v1/reservations";
    await page.click(`li[data-sidebar-id$="/${id}"] > button`);
    const code = `section[id$="/${id}"] code.language-curl`;
    await page.waitForSelector(code, { timeout: 30_000 });
    // biome-ignore lint/performance/useDomNodeTextContent: innerText is the snippet as shown and copied
    const snippet = await page.$eval(code, (c) => (c as HTMLElement).innerText);
    expect(snippet).toMatch(/^curl /);
    expect(snippet).toContain("--request POST");
    expect(snippet).toContain("--data");
    // The page points it at the Worker serving it; the reader puts in their token.
    expect(snippet).toContain(`${suite.worker.url}/v1/reservations`);
    expect(snippet).toContain("YOUR_SECRET_TOKEN");
    const command = snippet.replaceAll("YOUR_SECRET_TOKEN", TOKEN);
    const out = execFileSync("bash", ["-c", `${command.trimEnd()} --silent --show-error --write-out '\\n%{http_code}'`], { encoding: "utf8", timeout: 30_000 });
    const status = Number(out.slice(out.lastIndexOf("\n") + 1));
    const body = JSON.parse(out.slice(0, out.lastIndexOf("\n")));
    expect(status, out).toBe(201);
    // What it created is what the example body asked for.
    const sent = JSON.parse(snippet.slice(snippet.indexOf("'{") + 1, snippet.lastIndexOf("}'") + 1));
    expect(body).toMatchObject({ resource: sent.resource, holder: sent.holder });
    const listed = await suite.api("GET", `/v1/reservations/${body.id}`);
    expect(listed.status).toBe(200);
  });

  it("writes a screenshot of that operation, as a reader sees it, to test/screenshots/docs.png", async () => {
    // After the test above: the page shows "Reserve a resource" with its request and response examples.
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    rmSync(SCREENSHOT, { force: true }); // so that the file found below is this run's, not a stale one
    expect(existsSync(SCREENSHOT)).toBe(false);
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
  });
});
