import { createServer, type MacServer } from '../../../src/server/server.js';
import type { ServerOptions } from '../../../src/server/options.js';
import { testStateFile } from '../../helpers/store-mode.js';

/** An answer of the in-process service: status, parsed JSON body (or text) and headers. */
export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** A client of an in-process `mac serve` (no socket), authenticated as `key`. */
export interface TestClient {
  server: MacServer;
  call(method: string, path: string, body?: unknown, init?: { key?: string | null; headers?: Record<string, string>; raw?: string }): Promise<Answer>;
}

/** Creates a service (in memory, or on SQLite with MAC_TEST_STORE=sqlite) with a second account (`other`) and a read-only key for `dev`. */
export function testServer(options: Partial<ServerOptions> = {}): TestClient {
  const server = createServer({
    keys: [
      { key: 'mac-dev-key', accountId: 'dev', role: 'admin' },
      { key: 'reader-key', accountId: 'dev', role: 'read-only' },
      { key: 'other-key', accountId: 'other', role: 'admin' },
    ],
    rateLimit: { limit: 0, windowSeconds: 60 },
    stateFile: testStateFile(),
    ...options,
  });
  return {
    server,
    async call(method, path, body, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? 'mac-dev-key' : init.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let payload: string | undefined = init.raw;
      if (body !== undefined) payload = JSON.stringify(body);
      if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
      const res = await server.request(path, { method, headers, body: payload });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // Non-JSON answers stay text.
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}

/** A valid TCP check body. */
export const tcpBody = (extra: Record<string, unknown> = {}) => ({ name: 'db', request: { hostname: 'db.internal', port: 5432 }, ...extra });
/** A valid DNS check body. */
export const dnsBody = (extra: Record<string, unknown> = {}) => ({ name: 'dns', request: { query: 'example.com', recordType: 'A' }, heartbeat: {}, script: '', ...extra });
/** A valid URL monitor body. */
export const urlBody = (extra: Record<string, unknown> = {}) => ({ name: 'home', request: { url: 'https://example.com/' }, ...extra });
/** A valid API check body. */
export const icmpBody = (extra: Record<string, unknown> = {}) => ({ name: 'gateway', request: { hostname: '10.0.0.1' }, ...extra });

export const apiBody = (extra: Record<string, unknown> = {}) => ({ name: 'orders', request: { method: 'GET', url: 'https://api.example.com/orders' }, ...extra });
