// The bounded `pg.Pool`s behind `POST /sql`: one per connection string, each request run on a
// pooled connection and answered in the endpoint's wire format (sql-wire.ts).
import pg from "pg";
import { notRun, type SqlAnswer, type SqlQuery, type SqlRequest } from "./sql-wire";

/** Every value as Postgres's own text, which the driver parses (Neon-Raw-Text-Output). */
const RAW_TEXT = { getTypeParser: () => (value: string) => value };

/** The Postgres error fields the driver copies onto its error (its `hi` list). */
const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

function resultJson(r: pg.QueryResult<unknown[]>) {
  return {
    command: r.command,
    rowCount: r.rowCount,
    rows: r.rows,
    fields: r.fields.map((f) => ({
      name: f.name,
      tableID: f.tableID,
      columnID: f.columnID,
      dataTypeID: f.dataTypeID,
      dataTypeSize: f.dataTypeSize,
      dataTypeModifier: f.dataTypeModifier,
      format: "text",
    })),
    rowAsArray: true,
  };
}

function postgresError(err: unknown): SqlAnswer | undefined {
  if (!(err instanceof pg.DatabaseError)) return undefined;
  const body: Record<string, unknown> = { message: err.message };
  for (const k of ERROR_FIELDS) if (err[k] !== undefined) body[k] = err[k];
  return { status: 400, body };
}

/** The bounded pools, one per connection string (as Neon's pooler keeps one per database and role). */
export class SqlPools {
  private readonly pools = new Map<string, pg.Pool>();
  /** Clients checked out right now, so a partition can cut them. */
  private readonly active = new Set<pg.PoolClient>();
  private waiting = 0;
  private queueTimeouts = 0;

  constructor(private readonly opts: { size: number; queueMs: number; log: (line: string) => void }) {}

  stats() {
    return { poolActive: this.active.size, poolWaiting: this.waiting, poolQueueTimeouts: this.queueTimeouts };
  }

  resetStats(): void {
    this.queueTimeouts = 0;
  }

  private pool(connectionString: string): pg.Pool {
    let pool = this.pools.get(connectionString);
    if (!pool) {
      pool = new pg.Pool({
        connectionString,
        max: this.opts.size,
        // How long a statement may wait for a connection (queued behind the others, or Postgres slow to accept) before it is refused, certainly not run.
        connectionTimeoutMillis: this.opts.queueMs,
        idleTimeoutMillis: 10_000,
        application_name: "admit-bridge-pool",
      });
      // An idle pooled connection that dies (Postgres restarted) is dropped by the pool; without a listener it would crash the bridge.
      pool.on("error", (err) => this.opts.log(`bridge: pooled connection lost: ${err.message}`));
      // A checked-out one emits 'error' too, besides failing its statement, and the pool listens only
      // while a client is idle: every client gets a listener of its own for its whole life, or a
      // partition or a Postgres stop mid-statement is an uncaught exception in the bridge.
      pool.on("connect", (client) => void client.on("error", () => {}));
      this.pools.set(connectionString, pool);
    }
    return pool;
  }

  /**
   * Runs the request on a pooled connection and says what to answer. `gone()` tells whether the
   * client has given up meanwhile: a statement still waiting for a connection then never runs.
   */
  async run(connectionString: string, target: string, request: SqlRequest, gone: () => boolean): Promise<SqlAnswer | undefined> {
    let client: pg.PoolClient;
    this.waiting++;
    try {
      client = await this.pool(connectionString).connect();
    } catch (err) {
      const pgErr = postgresError(err);
      if (pgErr) return pgErr; // e.g. 28P01 bad password, 3D000 no such database, 57P03 starting up
      const msg = (err as Error).message;
      if (/timeout exceeded when trying to connect/.test(msg)) {
        this.queueTimeouts++;
        return notRun(
          "53300",
          `no pooled connection to Postgres at ${target} was free within ${this.opts.queueMs} ms (${this.opts.size} per database, all busy): the statement was not run. Retry shortly.`,
        );
      }
      return notRun("08006", `could not connect to Postgres at ${target} (${(err as NodeJS.ErrnoException).code ?? msg}): the statement was not run.`);
    } finally {
      this.waiting--;
    }
    if (gone()) {
      client.release();
      return undefined;
    }
    this.active.add(client);
    let broken: Error | undefined;
    try {
      if (request.kind === "single") return { status: 200, body: resultJson(await this.exec(client, request.query)) };
      await client.query(request.begin);
      try {
        const results = [];
        for (const q of request.queries) results.push(resultJson(await this.exec(client, q)));
        await client.query("COMMIT");
        return { status: 200, body: { results } };
      } catch (err) {
        if (err instanceof pg.DatabaseError) await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
    } catch (err) {
      const pgErr = postgresError(err);
      if (pgErr) return pgErr;
      // The connection died while the statement ran: it may have committed. Not a 400, so the
      // driver's error carries no SQLSTATE and the Worker cannot mistake it for "not run".
      broken = err as Error;
      return { status: 502, body: { message: `the connection to Postgres was lost while the statement ran; it may have been applied (${broken.message})` } };
    } finally {
      this.active.delete(client);
      client.release(broken);
    }
  }

  private exec(client: pg.PoolClient, q: SqlQuery): Promise<pg.QueryResult<unknown[]>> {
    // Extended protocol always (one statement, parameters bound), as Neon's endpoint runs it.
    return client.query({ text: q.query, values: q.params, rowMode: "array", types: RAW_TEXT, queryMode: "extended" } as pg.QueryConfig & { rowMode: "array" });
  }

  /** Cuts the connections running statements now (a partition); idle ones stay. */
  cutActive(): void {
    for (const c of this.active) (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }

  async end(): Promise<void> {
    this.cutActive();
    await Promise.allSettled([...this.pools.values()].map((p) => p.end()));
    this.pools.clear();
  }
}
