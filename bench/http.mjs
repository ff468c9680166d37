// URL-monitor runs per second against a local HTTP server, next to a bare undici loop doing
// the same exchange. The server runs in a child process so that it never shares the runner's
// event loop. Each run of a monitor opens a fresh connection (its dns/tcp phases are measured),
// so the bare loop opens one per request too: a new undici Client, GET, body read, close.
// Rounds alternate bare / runner and the medians are compared.
import { spawn } from 'node:child_process';
import { Client } from 'undici';
import { median } from './lib/figures.mjs';
import { stopChild, track } from './lib/resources.mjs';

const SERVER = `
const http = require('node:http');
const body = JSON.stringify({ status: 'ok', items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: 'item ' + i })) });
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }); res.end(body); });
server.keepAliveTimeout = 1000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

function startServer() {
  const child = track(spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ origin: `http://127.0.0.1:${m.port}`, child }));
    child.once('exit', (code) => reject(new Error(`bench HTTP server exited with ${code}`)));
  });
}

/**
 * Runs `one` with `concurrency` workers for `ms`; returns completed operations per second and this
 * process's CPU ms per operation (what the machine's other load does not change much).
 */
async function rate(one, concurrency, ms) {
  const end = performance.now() + ms;
  let done = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await one();
        done++;
      }
    }),
  );
  const cpu = process.cpuUsage(c0);
  return { perSecond: done / ((performance.now() - t0) / 1000), cpuMs: (cpu.user + cpu.system) / 1000 / Math.max(1, done) };
}

/**
 * Measures runner and bare loop. Returns runs/s of each (medians of `rounds` interleaved rounds
 * of `roundMs`), their ratio, and how many runner results failed (any failure voids the figure).
 */
export async function main({ quick = false, log = () => {} } = {}) {
  const { runCheck } = await import('../dist/runner/index.js');
  const server = await startServer();
  const concurrency = 8;
  const rounds = quick ? 3 : 5;
  const roundMs = quick ? 1000 : 3000;
  const check = {
    checkType: 'URL',
    name: 'bench',
    doubleCheck: false,
    request: { url: `${server.origin}/health`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
  };
  let failures = 0;
  const runner = async () => {
    const [r] = await runCheck(check);
    if (r.hasFailures || r.hasErrors) failures++;
  };
  const url = new URL(`${server.origin}/health`);
  const bare = async () => {
    const client = new Client(url.origin, { pipelining: 1 });
    try {
      const res = await client.request({ method: 'GET', path: url.pathname });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) failures++;
    } finally {
      await client.close();
    }
  };
  try {
    // Warm both paths up (JIT, connection code) before measuring.
    await rate(runner, concurrency, 300);
    await rate(bare, concurrency, 300);
    const r = [];
    const b = [];
    for (let i = 0; i < rounds; i++) {
      b.push(await rate(bare, concurrency, roundMs));
      r.push(await rate(runner, concurrency, roundMs));
      log(`http: round ${i + 1}/${rounds}: bare ${b.at(-1).perSecond.toFixed(0)}/s (${b.at(-1).cpuMs.toFixed(2)} CPU ms each), runner ${r.at(-1).perSecond.toFixed(0)}/s (${r.at(-1).cpuMs.toFixed(2)} CPU ms each)`);
    }
    const runnerRate = median(r.map((x) => x.perSecond));
    const bareRate = median(b.map((x) => x.perSecond));
    return {
      bench: 'http-runs',
      runsPerSecond: runnerRate,
      bareRequestsPerSecond: bareRate,
      ratio: runnerRate / bareRate,
      runnerCpuMs: median(r.map((x) => x.cpuMs)),
      bareCpuMs: median(b.map((x) => x.cpuMs)),
      concurrency,
      rounds,
      roundMs,
      failures,
    };
  } finally {
    await stopChild(server.child);
  }
}
