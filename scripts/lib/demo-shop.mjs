// The demo's local "shop": what the checks of examples/ watch, served on 127.0.0.1 only, so that
// `npm run demo` runs them for real without calling any public endpoint. One HTTP server (the
// home page, the catalog API, the cart and checkout the multi-step script walks through, and a
// sink for the alert webhooks), TCP listeners for the databases, the cache and the payment
// endpoints, and a DNS responder (UDP and TCP on one port) for the shop's names.
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { CLASS_IN, decodeMessage, encodeMessage, toFqdn } from '../../dist/runner/dns/codec.js';

const HOST = '127.0.0.1';

const PRODUCTS = [
  { id: 'p-100', sku: 'MUG-BLUE', name: 'Blue mug', price: 1200 },
  { id: 'p-101', sku: 'TEE-M', name: 'T-shirt (M)', price: 2500 },
];

/** The shop's DNS zone: what its checks query. */
const ZONE = [
  { name: 'www.shop.example', type: 'A', data: HOST },
  { name: 'shop.example', type: 'MX', data: '10 mx.shop.example.' },
];

const json = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

/** Reads a request body of at most 64 KiB as JSON ({} when empty or not JSON). */
function readJson(req) {
  return new Promise((resolve) => {
    let size = 0;
    const chunks = [];
    req.on('data', (c) => {
      size += c.length;
      if (size <= 65_536) chunks.push(c);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
      } catch {
        resolve({});
      }
    });
    req.on('error', () => resolve({}));
  });
}

function shopApp(alerts) {
  const carts = new Map();
  return async (req, res) => {
    const url = new URL(req.url ?? '/', `http://${HOST}`);
    const path = url.pathname;
    if (req.method === 'GET' && path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end('<!doctype html><title>Shop</title><h1>Shop</h1><p>Welcome.</p>');
    }
    const limit = Math.max(1, Math.min(Number(url.searchParams.get('limit')) || PRODUCTS.length, PRODUCTS.length));
    // The catalog API (examples/checks/http.yaml) and the products list the checkout script reads.
    if (req.method === 'GET' && path === '/v1/products') return json(res, 200, { items: PRODUCTS.slice(0, limit) });
    if (req.method === 'GET' && path === '/products') return json(res, 200, PRODUCTS.slice(0, limit));
    if (req.method === 'POST' && path === '/cart') {
      const body = await readJson(req);
      if (!PRODUCTS.some((p) => p.id === body.productId)) return json(res, 400, { error: 'unknown productId' });
      if (carts.size > 1000) carts.clear();
      const cartId = randomUUID();
      carts.set(cartId, { productId: body.productId, quantity: body.quantity ?? 1 });
      return json(res, 201, { cartId });
    }
    const checkout = /^\/cart\/([^/]+)\/checkout$/.exec(path);
    if (req.method === 'POST' && checkout) {
      if (!carts.delete(checkout[1])) return json(res, 404, { error: 'no such cart' });
      return json(res, 200, { paymentIntent: `pi_demo_${randomUUID().slice(0, 8)}` });
    }
    // The alert channels' webhooks (ops bridge, Slack) land here: counted, never forwarded.
    if (req.method === 'POST' && path.startsWith('/hooks/')) {
      await readJson(req);
      alerts.push(path);
      return json(res, 200, { ok: true });
    }
    json(res, 404, { error: 'not found' });
  };
}

const listen = (server) =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve(server.address().port));
  });

/** A TCP listener that accepts connections; `reply(data)` answers what a client sends (or nothing). */
function tcpListener(reply) {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('data', (data) => {
      const out = reply?.(data.toString('latin1'));
      if (out) socket.write(out);
    });
  });
  server.closeAllConnections = () => sockets.forEach((s) => s.destroy());
  return server;
}

function dnsAnswer(query) {
  const q = query.questions[0];
  const name = q?.name.toLowerCase();
  const records = ZONE.filter((r) => toFqdn(r.name) === name);
  return encodeMessage({
    id: query.id,
    flags: { qr: true, opcode: 0, aa: true, tc: false, rd: query.flags.rd, ra: false, rcode: records.length === 0 ? 3 : 0 },
    questions: query.questions,
    answers: records.filter((r) => r.type === q.type).map((r) => ({ name: q.name, type: r.type, class: CLASS_IN, ttl: 300, data: r.data })),
    authorities: [],
    additionals: [],
  });
}

/** The DNS responder: UDP and TCP on one port of 127.0.0.1. Malformed queries are dropped. */
async function startDns() {
  for (let tries = 0; ; tries++) {
    const udp = dgram.createSocket('udp4');
    await new Promise((resolve) => udp.bind(0, HOST, resolve));
    const port = udp.address().port;
    const tcp = net.createServer((socket) => {
      socket.on('error', () => undefined);
      let pending = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
          const frame = pending.subarray(2, 2 + pending.readUInt16BE(0));
          pending = pending.subarray(2 + frame.length);
          try {
            const out = dnsAnswer(decodeMessage(frame));
            const prefix = Buffer.alloc(2);
            prefix.writeUInt16BE(out.length);
            socket.write(Buffer.concat([prefix, out]));
          } catch {
            socket.destroy();
          }
        }
      });
    });
    const bound = await new Promise((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, HOST, () => resolve(true));
    });
    if (!bound) {
      udp.close();
      if (tries > 20) throw new Error('no port of 127.0.0.1 is free for both UDP and TCP');
      continue;
    }
    udp.on('message', (buf, rinfo) => {
      try {
        udp.send(dnsAnswer(decodeMessage(buf)), rinfo.port, rinfo.address);
      } catch {
        // Not a DNS query: no answer.
      }
    });
    return { port, close: () => Promise.all([new Promise((r) => udp.close(r)), new Promise((r) => tcp.close(r))]) };
  }
}

/**
 * Starts the shop. Resolves to `{ host, web, dns, tcp: {primary, replica, redis, payments,
 * webhooks}, alerts, close }`: the ports of each part, the alert webhook paths received, and a
 * function that stops everything.
 */
export async function startShop() {
  const alerts = [];
  const servers = [];
  const web = http.createServer(shopApp(alerts));
  servers.push(web);
  const webPort = await listen(web);
  const tcp = {};
  const listeners = {
    primary: undefined,
    replica: undefined,
    // Redis answers PING with +PONG (examples/checks/databases.yaml asserts PONG).
    redis: (data) => (/^PING/i.test(data) ? '+PONG\r\n' : '-ERR unknown command\r\n'),
    payments: undefined,
    webhooks: undefined,
  };
  for (const [name, reply] of Object.entries(listeners)) {
    const server = tcpListener(reply);
    servers.push(server);
    tcp[name] = await listen(server);
  }
  const dns = await startDns();
  return {
    host: HOST,
    web: webPort,
    dns: dns.port,
    tcp,
    alerts,
    close: async () => {
      for (const s of servers) s.closeAllConnections?.();
      await Promise.all([...servers.map((s) => new Promise((r) => s.close(r))), dns.close()]);
    },
  };
}
