import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startBridge, type Bridge } from '../dev/bridge';
import { startPostgres, type PgHandle } from '../dev/postgres';

let pg: PgHandle;
let bridge: Bridge;
let tmp: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'admit-bridge-'));
  fs.chmodSync(tmp, 0o755); // as root, postgres runs as user "postgres" and must enter tmp
  pg = await startPostgres({ dataDir: path.join(tmp, 'data'), persistent: false });
  bridge = await startBridge();
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await pg?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 30_000);

function neonClient(connectionString: string): Client {
  const c = new Client({ connectionString });
  c.neonConfig.webSocketConstructor = WebSocket;
  c.neonConfig.wsProxy = bridge.wsProxy;
  c.neonConfig.useSecureWebSocket = false;
  c.neonConfig.pipelineTLS = false;
  c.neonConfig.pipelineConnect = 'password';
  return c;
}

function upgrade(query: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${bridge.wsProxy}${query}`);
    ws.on('unexpected-response', (req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    ws.on('open', () => {
      ws.terminate();
      reject(new Error('upgrade unexpectedly accepted'));
    });
    ws.on('error', reject);
  });
}

describe('bridge', () => {
  it('refuses non-loopback targets with 403 without connecting', async () => {
    const before = bridge.stats();
    const targets = ['10.0.0.1:5432', 'example.com:5432', '0.0.0.0:5432', '192.168.1.1:5432', '[::]:5432'];
    for (const address of targets) {
      const { status, body } = await upgrade(`?address=${address}`);
      expect(status, address).toBe(403);
      expect(body).toContain('loopback');
    }
    const after = bridge.stats();
    expect(after.refused - before.refused).toBe(targets.length);
    expect(after.connections).toBe(before.connections);
  });

  it('rejects a missing or malformed address with 400', async () => {
    expect((await upgrade('')).status).toBe(400);
    expect((await upgrade('?address=127.0.0.1')).status).toBe(400);
    expect((await upgrade('?address=127.0.0.1:99999')).status).toBe(400);
  });

  it('carries Postgres traffic for the Neon driver', async () => {
    const before = bridge.stats().clientMessages;
    const c = neonClient(pg.url);
    await c.connect();
    try {
      const { rows } = await c.query<{ x: number }>('select 1 as x');
      expect(rows).toEqual([{ x: 1 }]);
    } finally {
      await c.end();
    }
    expect(bridge.stats().clientMessages).toBeGreaterThan(before);
  });

  it('fails fast when nothing listens on the target port', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      });
    });
    const c = neonClient(`postgres://postgres:admit@127.0.0.1:${port}/admit`);
    c.on('error', () => {});
    const started = Date.now();
    // With pipelineConnect the driver's connect() resolves as soon as the WebSocket opens, so the
    // failure surfaces on the first query.
    // failure surfaces on the first query. The bridge reports it as Postgres would (SQLSTATE
    // 08006), so the caller knows the pipelined query never reached a server.
    const attempt = c.connect().then(() => c.query('select 1'));
    await expect(attempt).rejects.toMatchObject({ code: '08006', message: expect.stringContaining('could not connect') });
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 10_000);
});
