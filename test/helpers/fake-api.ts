import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A handler of the fake API: called once the request's body has been read whole. */
export type FakeApiHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A real local HTTP server on 127.0.0.1 standing for the API, one handler at a time. */
export interface FakeApi {
  /** Starts a server answering with `handler`; its base URL. */
  serve(handler: FakeApiHandler): Promise<string>;
  /** Stops the server started last, if any (it waits for open connections to end). */
  close(): Promise<void>;
}

export function fakeApi(): FakeApi {
  let server: Server | undefined;
  return {
    async serve(handler) {
      const s = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => handler(req, res, body));
      });
      server = s;
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    },
    async close() {
      const s = server;
      server = undefined;
      await new Promise<void>((r) => (s ? s.close(() => r()) : r()));
    },
  };
}

/** A JSON answer with `status` and any extra headers. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
