// Apply benchmarks: (a) create throughput against a slow service at a fixed concurrency,
// (b) throughput under the service's rate limit. Prints human lines and one JSON line per figure.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';

const MAC = fileURLToPath(new URL('../bin/mac.js', import.meta.url));

/** Starts `mac serve --port 0 ...args`; resolves to { url, stop } once it listens. */
export function serve(args) {
  const child = spawn(process.execPath, [MAC, 'serve', '--port', '0', '--no-runs', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        resolve({
          url: m[1],
          stop: () => new Promise((done) => (child.exitCode !== null ? done() : (child.once('exit', () => done()), process.kill(child.pid, 'SIGTERM')))),
        });
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`mac serve exited with ${code}:\n${out}`)));
  });
}

/** Runs the built CLI; resolves to { code, stdout, stderr, wallMs }. */
export function runMac(args, env) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAC, ...args], { env: { PATH: process.env.PATH, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr, wallMs: performance.now() - started }));
  });
}

/** A project of `n` TCP checks. */
function project(name, n) {
  const dir = mkdtempSync(join(tmpdir(), `mac-bench-${name}-`));
  writeFileSync(join(dir, 'mac.config.yaml'), `project: ${name}\n`);
  const docs = Array.from({ length: n }, (_, i) => `kind: TcpCheck\nid: c${i}\nname: Check ${i}\nrequest: { hostname: h${i}.example, port: 443 }\n`);
  writeFileSync(join(dir, 'checks.yaml'), docs.join('---\n'));
  return dir;
}

/** Applies `n` creates and returns the parsed result of `mac apply --format json` plus the process wall time. */
async function applyOnce(url, name, n, extraArgs) {
  const dir = project(name, n);
  try {
    const r = await runMac(['apply', dir, '--yes', '--format', 'json', ...extraArgs], { MAC_API_URL: url, MAC_API_KEY: 'mac-dev-key' });
    if (r.code !== 0) throw new Error(`mac apply exited with ${r.code}:\n${r.stdout.slice(0, 2000)}\n${r.stderr.slice(-2000)}`);
    return { result: JSON.parse(r.stdout), processMs: r.wallMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same `n` creates sent by a bare undici loop at the same concurrency, no engine at all: what
 * the service itself allows on this machine, to tell the engine's overhead from the service's.
 */
export async function rawCreates(url, n, concurrency) {
  const agent = new Agent({ connections: concurrency });
  const limit = pLimit(concurrency);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      limit(async () => {
        const res = await request(`${url}/v1/checks/tcp?autoAssignAlerts=false`, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Raw ${i}`, tags: [`mac:raw/c${i}`], request: { hostname: `h${i}.example`, port: 443 } }),
        });
        await res.body.text();
        if (res.statusCode !== 201) throw new Error(`raw POST answered ${res.statusCode}`);
      }),
    ),
  );
  const ms = performance.now() - started;
  await agent.close();
  return ms;
}

/**
 * (a) `n` creates against `mac serve --latency L` at `--concurrency C`. Efficiency is the ideal
 * time n x L / C over the apply stage's time (re-read, waves and convergence check; process
 * start-up and planning are reported apart).
 */
export async function benchLatency({ n = 1000, latencyMs = 50, concurrency = 16 } = {}) {
  const server = await serve(['--latency', String(latencyMs), '--rate-limit', '0/60']);
  try {
    const { result, processMs } = await applyOnce(server.url, 'bench-latency', n, ['--concurrency', String(concurrency), '--rate-limit', '0/1']);
    const idealMs = (n * latencyMs) / concurrency;
    const efficiency = idealMs / result.durationMs;
    const rawMs = await rawCreates(server.url, n, concurrency);
    return {
      bench: 'apply-latency', n, latencyMs, concurrency, applied: result.summary.applied, failed: result.summary.failed,
      stageMs: Math.round(result.durationMs), processMs: Math.round(processMs), idealMs, requests: result.requests,
      rawMs: Math.round(rawMs), rawEfficiency: Number((idealMs / rawMs).toFixed(3)), engineVsRaw: Number((rawMs / result.durationMs).toFixed(3)),
      efficiency: Number(efficiency.toFixed(3)), target: 0.85, ok: efficiency >= 0.85 && result.summary.failed === 0,
    };
  } finally {
    await server.stop();
  }
}

/** (b) `n` creates under `mac serve --rate-limit R/S`, the engine limited to the same: zero failures, >= 90% of the limit. */
export async function benchRateLimit({ n = 500, requests = 50, perSeconds = 1, concurrency = 16 } = {}) {
  const limit = `${requests}/${perSeconds}`;
  const server = await serve(['--rate-limit', limit]);
  try {
    const { result } = await applyOnce(server.url, 'bench-rate', n, ['--concurrency', String(concurrency), '--rate-limit', limit]);
    const perSecond = result.requests / (result.durationMs / 1000);
    const share = perSecond / (requests / perSeconds);
    return {
      bench: 'apply-rate-limit', n, limit, applied: result.summary.applied, failed: result.summary.failed, requests: result.requests,
      stageMs: Math.round(result.durationMs), requestsPerSecond: Number(perSecond.toFixed(2)),
      shareOfLimit: Number(share.toFixed(3)), target: 0.9, ok: result.summary.failed === 0 && share >= 0.9,
    };
  } finally {
    await server.stop();
  }
}

/** Runs both benchmarks; exit code 1 when a target is missed. */
export async function main() {
  const a = await benchLatency();
  console.log(`apply: ${a.n} creates at --latency ${a.latencyMs} --concurrency ${a.concurrency}: stage ${a.stageMs} ms (ideal ${a.idealMs} ms, process ${a.processMs} ms), efficiency ${a.efficiency} (target >= ${a.target}) ${a.ok ? 'ok' : 'MISSED'}`);
  console.log(`       the same creates from a bare undici loop: ${a.rawMs} ms (efficiency ${a.rawEfficiency}); the engine runs at ${Math.round(a.engineVsRaw * 100)}% of that`);
  console.log(JSON.stringify(a));
  const b = await benchRateLimit();
  console.log(`apply: ${b.n} creates under --rate-limit ${b.limit}: ${b.requests} requests in ${b.stageMs} ms = ${b.requestsPerSecond}/s, ${Math.round(b.shareOfLimit * 100)}% of the limit, ${b.failed} failed (target >= 90%, 0 failed) ${b.ok ? 'ok' : 'MISSED'}`);
  console.log(JSON.stringify(b));
  return a.ok && b.ok ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then((code) => (process.exitCode = code), (err) => { console.error(err); process.exitCode = 1; });
}
