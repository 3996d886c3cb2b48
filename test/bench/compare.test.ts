// npm run bench:compare: each target across the reports of several runs, as a table with a column per run.
import { describe, expect, it } from "vitest";
import { AUTHZ, compareMarkdown, evaluateTargets, type Row, runLabel, type Target, targetHistory } from "../../bench/report";
import { row } from "./fixtures";

describe("targets across runs (npm run bench:compare)", () => {
  const t = (name: string, value: number | null, met: boolean | null): Target => ({ name, value, met, min: 0.35, detail: "" });
  const runs = [
    { label: "11-27 06:28", targets: [t("a", 0.4, true), t("b", 0.3, false), t("c", 0.2, false), t("diag", 0.5, null)] },
    { label: "11-27 08:19 d3132da", targets: [t("a", 0.5, true), t("b", 0.36, true), t("c", 0.25, false), t("d | e", 0.6, true), t("diag", 0.6, null)] },
  ];

  it("each judged target with its value and verdict per run, the least met first; a run that did not judge one leaves it out of the count", () => {
    expect(targetHistory(runs)).toEqual([
      { name: "c", values: [0.2, 0.25], mets: [false, false], met: 0, judged: 2 },
      { name: "b", values: [0.3, 0.36], mets: [false, true], met: 1, judged: 2 },
      { name: "a", values: [0.4, 0.5], mets: [true, true], met: 2, judged: 2 },
      { name: "d | e", values: [null, 0.6], mets: [null, true], met: 1, judged: 1 },
    ]);
  });

  it("as markdown: a column per run, met values bold, '–' where a run did not judge it, pipes in a name escaped", () => {
    const md = compareMarkdown(runs).split("\n");
    expect(md[0]).toBe("| target | 11-27 06:28 | 11-27 08:19 d3132da | met in |");
    expect(md[1]).toBe("| --- | --- | --- | --- |");
    expect(md[2]).toBe("| c | 0.2 | 0.25 | 0 of 2 |");
    expect(md[3]).toBe("| b | 0.3 | **0.36** | 1 of 2 |");
    expect(md[5]).toBe("| d \\| e | – | **0.6** | 1 of 1 |");
    expect(md).toHaveLength(6);
  });

  it("the /v1/authz row's targets have names of their own; in older reports, where a name's second target was that row's, it is read as such", () => {
    const edge = (over: Partial<Row>) => row({ layer: "edge", connection: "http", round_trips_per_decision: 0, http_requests_per_decision: 0.1, ...over });
    const rows = [
      edge({ scenario: "edge-noop", impl: "noop", connection: "none", throughput_rps: 1000, http_requests_per_decision: 0 }),
      edge({ throughput_rps: 300 }),
      edge({ impl: AUTHZ, throughput_rps: 400, http_requests_per_decision: 0.2 }),
      row({ layer: "ceiling", impl: "pgbench", throughput_rps: 1000 }),
    ];
    const targets = evaluateTargets(rows);
    const names = targets.map((x) => x.name);
    expect(new Set(names).size).toBe(names.length);
    const byName = Object.fromEntries(targets.map((x) => [x.name, x]));
    expect(byName["ratelimit-hot c=16: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.3, met: false });
    expect(byName["ratelimit-hot c=16: GET /v1/authz, edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.4, met: true });
    expect(byName["ratelimit-hot c=16: GET /v1/authz, HTTP SQL requests per decision ≤ 1"]).toMatchObject({ value: 0.2, met: true });
    expect(byName["ratelimit-hot: GET /v1/authz, edge http c=16 ÷ pgbench pooled (diagnostic)"]).toMatchObject({ value: 0.4 });
    expect(byName["ratelimit-hot: edge http c=16 ÷ pgbench pooled (diagnostic)"]).toMatchObject({ value: 0.3 });
    // An older report: both rows' targets under one name, the check's first.
    const old = { label: "old", targets: targets.map((x) => ({ ...x, name: x.name.replace("GET /v1/authz, ", "") })) };
    const history = targetHistory([old, { label: "new", targets }]);
    expect(history.find((h) => h.name === "ratelimit-hot c=16: GET /v1/authz, edge http ≥ 0.35× the edge no-op")?.values).toEqual([0.4, 0.4]);
    expect(history.find((h) => h.name === "ratelimit-hot c=16: edge http ≥ 0.35× the edge no-op")?.values).toEqual([0.3, 0.3]);
  });

  it("a run's label: its start to the minute (UTC) and its commit when the report names one", () => {
    expect(runLabel({ started_at: "2026-11-27T15:02:18.640Z" })).toBe("11-27 15:02");
    expect(runLabel({ started_at: "2026-11-27T15:02:18.640Z", commit: "932840d+changes" })).toBe("11-27 15:02 932840d+changes");
    expect(runLabel({ started_at: "2026-11-27T15:02:18.640Z", commit: null })).toBe("11-27 15:02");
  });
});
