// `node bench/agent.mjs [--checks N] [--seconds S] [--concurrency C] [--time-scale T] [--mac BIN] [--json FILE]`
// (run `npm run build` first; --mac: another build's bin/mac.js, to compare two builds side by side)
// What one `mac agent` sustains: URL monitors of a private location against a local HTTP server,
// every one due each simulated 10 s (--time-scale 600: every real ~17 ms per check), side by side
// with the same checks run by the service itself (a public location). Figures: runs recorded per
// second, CPU ms per run (service + agent, against the service alone: the protocol's overhead per
// run), and the agent's RSS. Each mode starts its own `mac serve` (in memory) and stops it by pid.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '32' },
    'time-scale': { type: 'string', default: '600' },
    mac: { type: 'string' },
    json: { type: 'string' },
  },
});
const CHECKS = Number(values.checks);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const MAC = values.mac ?? fileURLToPath(new URL('../bin/mac.js', import.meta.url));
const SCALE = Number(values['time-scale']);
const TICKS = 100; // clock ticks per second (/proc/PID/stat)

function spawnMac(args, env = {}) {
  const child = spawn(process.execPath, [MAC, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return { child, log: () => out };
}

async function startServe() {
  const s = spawnMac(['serve', '--port', '0', '--time-scale', String(SCALE), '--rate-limit', '0/60', '--deny-targets', 'none']);
  for (let i = 0; i < 600; i++) {
    const m = /listening on (http:\/\/\S+)/.exec(s.log());
    if (m) return { ...s, url: m[1] };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`mac serve did not start: ${s.log()}`);
}

async function api(url, method, path, body) {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS;
}
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Results recorded so far for the checks (sum of each check's count over the window). */
async function recorded(url, ids, fromIso) {
  let n = 0;
  for (const id of ids) {
    const r = await fetch(`${url}/v1/check-results/${id}?from=${Math.floor(Date.parse(fromIso) / 1000)}&limit=1`, { headers: { authorization: 'Bearer mac-dev-key' } });
    const range = r.headers.get('content-range');
    await r.arrayBuffer();
    n += range ? Number(range.split('/')[1]) || 0 : 0;
  }
  return n;
}

async function measure(mode, targetUrl) {
  const serve = await startServe();
  let agent;
  try {
    let body = {};
    if (mode === 'agent') {
      const loc = await api(serve.url, 'POST', '/v1/private-locations', { name: 'bench', slugName: 'bench' });
      agent = spawnMac(['agent', '--api-url', serve.url, '--concurrency', String(CONCURRENCY)], { MAC_AGENT_KEY: loc.keys[0].rawKey });
      body = { privateLocations: ['bench'] };
    } else body = { locations: ['eu-west-1'] };
    const ids = [];
    for (let i = 0; i < CHECKS; i++) {
      // frequency 0 + offset 10: every 10 simulated seconds.
      const c = await api(serve.url, 'POST', '/v1/checks/url', { name: `b${i}`, frequency: 0, frequencyOffset: 10, activated: true, ...body, request: { url: `${targetUrl}/${i}` } });
      ids.push(c.id);
    }
    // Warm up, then the window.
    await new Promise((r) => setTimeout(r, 3000));
    const from = new Date().toISOString();
    const cpu0 = cpuMs(serve.child.pid) + (agent ? cpuMs(agent.child.pid) : 0);
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const cpu1 = cpuMs(serve.child.pid) + (agent ? cpuMs(agent.child.pid) : 0);
    const elapsed = (Date.now() - t0) / 1000;
    const agentRss = agent ? rssMb(agent.child.pid) : null;
    const agentCpu = agent ? cpuMs(agent.child.pid) : null;
    const n = await recorded(serve.url, ids, from);
    return { mode, runs: n, runsPerSecond: n / elapsed, cpuMsPerRun: (cpu1 - cpu0) / Math.max(1, n), agentRssMb: agentRss, agentCpuMs: agentCpu, due: (CHECKS * elapsed) / (10 / SCALE) };
  } finally {
    if (agent) {
      agent.child.kill('SIGTERM');
      await new Promise((r) => agent.child.once('exit', r));
    }
    serve.child.kill('SIGTERM');
    await new Promise((r) => serve.child.once('exit', r));
  }
}

const target = createServer((req, res) => res.end('ok'));
await new Promise((r) => target.listen(0, '127.0.0.1', r));
const targetUrl = `http://127.0.0.1:${target.address().port}`;
try {
  const own = await measure('service', targetUrl);
  const viaAgent = await measure('agent', targetUrl);
  const figures = {
    checks: CHECKS,
    seconds: SECONDS,
    concurrency: CONCURRENCY,
    dueRunsPerSecond: +(CHECKS / (10 / SCALE)).toFixed(1),
    service: { runsPerSecond: +own.runsPerSecond.toFixed(1), cpuMsPerRun: +own.cpuMsPerRun.toFixed(2) },
    agent: { runsPerSecond: +viaAgent.runsPerSecond.toFixed(1), cpuMsPerRun: +viaAgent.cpuMsPerRun.toFixed(2), rssMb: +viaAgent.agentRssMb.toFixed(1) },
    overheadCpuMsPerRun: +(viaAgent.cpuMsPerRun - own.cpuMsPerRun).toFixed(2),
    cpuRatio: +(viaAgent.cpuMsPerRun / own.cpuMsPerRun).toFixed(2),
  };
  console.log(`URL monitors, ${CHECKS} checks due ${figures.dueRunsPerSecond}/s, ${SECONDS} s window`);
  console.log(`  service's own runs: ${figures.service.runsPerSecond} runs/s, ${figures.service.cpuMsPerRun} CPU ms per run`);
  console.log(`  one mac agent (--concurrency ${CONCURRENCY}): ${figures.agent.runsPerSecond} runs/s, ${figures.agent.cpuMsPerRun} CPU ms per run (service + agent), agent RSS ${figures.agent.rssMb} MB`);
  console.log(`  protocol overhead: +${figures.overheadCpuMsPerRun} CPU ms per run (x${figures.cpuRatio})`);
  if (values.json) writeFileSync(values.json, JSON.stringify(figures, null, 2));
} finally {
  target.close();
}
