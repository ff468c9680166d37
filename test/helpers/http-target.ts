import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One request a local HTTP server received. */
export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Answers one request; it may also never answer or break the connection. */
export type Handler = (req: Received, res: http.ServerResponse) => void;

/** An HTTP(S) server on 127.0.0.1 (or ::1) with a replaceable handler. */
export interface HttpTarget {
  port: number;
  /** `http://127.0.0.1:PORT` or `https://localhost:PORT`. */
  origin: string;
  received: Received[];
  set(handler: Handler): void;
  close(): Promise<void>;
}

let cert: { key: string; cert: string } | undefined;

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl once per process. */
export function selfSignedCert(): { key: string; cert: string } {
  if (cert) return cert;
  const dir = mkdtempSync(join(tmpdir(), 'mac-cert-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ], { stdio: 'ignore' });
    cert = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    return cert;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a server; `tls` serves HTTPS with a self-signed certificate; `host` defaults to 127.0.0.1. */
export async function startHttpTarget(opts: { tls?: boolean; host?: string; handler?: Handler } = {}): Promise<HttpTarget> {
  let handler: Handler = opts.handler ?? ((_req, res) => res.end('ok'));
  const received: Received[] = [];
  const sockets = new Set<net.Socket>();
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      handler(r, res);
    });
  };
  const server = opts.tls ? https.createServer(selfSignedCert(), listener) : http.createServer(listener);
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: net.Socket) => s.on('error', () => undefined));
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    origin: opts.tls ? `https://localhost:${port}` : `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    received,
    set: (h) => (handler = h),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
