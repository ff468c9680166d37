// Throughput of `GET /v1/checks?limit=100` (100 stored checks) on `mac serve`, next to a bare
// node:http server answering the same bytes. Both servers run in child processes so that the
// load generator (undici Pool, fixed concurrency, fixed duration) never shares their event loop.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const MAC_BIN = fileURLToPath(new URL('../bin/mac.js', import.meta.url));
const KEY = 'mac-dev-key';
const PATH = '/v1/checks?limit=100';

const BARE_SERVER = `
const http = require('node:http');
let body = Buffer.alloc(0), headers = {};
process.on('message', (m) => { body = Buffer.from(m.body, 'base64'); headers = m.headers; process.send('ready'); });
const server = http.createServer((req, res) => { res.writeHead(200, { ...headers, 'content-length': body.length }); res.end(body); });
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

function startMac(database) {
  const child = spawn(process.execPath, [MAC_BIN, 'serve', '--port', '0', '--no-runs', '--rate-limit', '0/60', ...(database ? ['--database', database] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`mac serve exited with ${code}: ${out}`)));
  });
}

function startBare(body, headers) {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve) => {
    child.on('message', (m) => {
      if (m && m.port) child.send({ body: body.toString('base64'), headers });
      else if (m === 'ready') resolve({ url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') });
    });
    let port;
    child.on('message', (m) => m && m.port && (port = m.port));
  });
}

async function seed(url, count) {
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}/v1/checks/tcp?autoAssignAlerts=false`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `check ${i}`, tags: ['bench', `t${i % 7}`], request: { hostname: `db-${i}.internal`, port: 5432 } }),
    });
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
  }
  const res = await fetch(`${url}${PATH}`, { headers });
  return { body: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type'), 'content-range': res.headers.get('content-range') } };
}

/** Sends requests at fixed concurrency for `seconds`; returns completed requests per second. */
async function load(url, { concurrency, seconds }) {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
  const headers = { authorization: `Bearer ${KEY}` };
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const res = await pool.request({ path: PATH, method: 'GET', headers });
      await res.body.arrayBuffer();
      if (res.statusCode === 200) done++;
      else failed++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  if (failed > 0) throw new Error(`${failed} requests failed against ${url}`);
  return done / elapsed;
}

/** Runs the benchmark and returns `{bench, macRps, bareRps, ratio}`. */
export async function main({ concurrency = 16, seconds = 5, warmupSeconds = 1, database } = {}) {
  const mac = await startMac(database);
  let bare;
  try {
    const sample = await seed(mac.url, 100);
    bare = await startBare(sample.body, sample.headers);
    await load(mac.url, { concurrency, seconds: warmupSeconds });
    await load(bare.url, { concurrency, seconds: warmupSeconds });
    const macRps = await load(mac.url, { concurrency, seconds });
    const bareRps = await load(bare.url, { concurrency, seconds });
    const result = { bench: 'serve-throughput', macRps: Math.round(macRps), bareRps: Math.round(bareRps), ratio: Number((macRps / bareRps).toFixed(3)), bytes: sample.body.length, concurrency, seconds };
    return result;
  } finally {
    mac.stop();
    bare?.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `--database URL` (sqlite:FILE, postgres://...), or `--postgres`: a PostgreSQL of its own.
  const at = process.argv.indexOf('--database');
  let database = at > 0 ? process.argv[at + 1] : undefined;
  const pg = process.argv.includes('--postgres') ? await (await import('../scripts/lib/embedded-postgres.mjs')).startPostgres() : undefined;
  if (pg) database = pg.url('bench');
  const r = await main({ database });
  await pg?.stop();
  console.log(`serve-throughput: mac serve ${r.macRps} req/s, bare node:http ${r.bareRps} req/s, ratio ${r.ratio} (GET ${PATH}, ${r.bytes} bytes, ${r.concurrency} connections, ${r.seconds} s)`);
  console.log(JSON.stringify({ bench: r.bench, macRps: r.macRps, bareRps: r.bareRps, ratio: r.ratio }));
}
