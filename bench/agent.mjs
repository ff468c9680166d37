// `node bench/agent.mjs [--checks N] [--rates R1,R2,..] [--seconds S] [--concurrency C] [--mac BIN] [--json FILE]`
// (run `npm run build` first; --mac: another build's bin/mac.js, to compare two builds side by side)
// What one `mac agent` sustains: URL monitors of a private location against a local HTTP server,
// side by side with the same checks run by the service itself (a public location). For each rate
// (runs due per real second: N checks, each due every N/R s), both modes run the same schedule;
// figures per mode: runs recorded per second against runs due (an agent that keeps up records
// them all; one that does not leaves a growing queue, reported as `backlog`, never counted as
// throughput), the time from a run's due time to its recorded result (p50/p95, agent mode),
// CPU ms per run (service + agent, against the service alone: the protocol's overhead per run),
// and the agent's RSS. `sustained`: the highest rate whose runs were all recorded within one
// period. Each mode starts its own `mac serve` (SQLite state in a temporary directory) and
// stops it by pid.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '40' },
    rates: { type: 'string', default: '10,20,40' },
    seconds: { type: 'string', default: '15' },
    concurrency: { type: 'string', default: '32' },
    mac: { type: 'string' },
    json: { type: 'string' },
  },
});
const CHECKS = Number(values.checks);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const MAC = values.mac ?? fileURLToPath(new URL('../bin/mac.js', import.meta.url));
const RATES = values.rates.split(',').map(Number);
/** Simulated seconds between two runs of a check (frequency 0, frequencyOffset 10). */
const SIM_PERIOD_S = 10;
const TICKS = 100; // clock ticks per second (/proc/PID/stat)

function spawnMac(args, env = {}) {
  const child = spawn(process.execPath, [MAC, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return { child, log: () => out };
}

async function startServe(scale, state) {
  const s = spawnMac(['serve', '--port', '0', '--state', state, '--time-scale', String(scale), '--rate-limit', '0/60', '--deny-targets', 'none']);
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

function percentile(sorted, p) {
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(mode, targetUrl, rate) {
  // N checks due every N/rate real seconds: SIM_PERIOD_S simulated seconds at this time scale.
  const periodS = CHECKS / rate;
  const scale = SIM_PERIOD_S / periodS;
  const dir = mkdtempSync(join(tmpdir(), 'mac-bench-agent-'));
  const state = join(dir, 'state.db');
  const serve = await startServe(scale, state);
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
      const c = await api(serve.url, 'POST', '/v1/checks/url', { name: `b${i}`, frequency: 0, frequencyOffset: SIM_PERIOD_S, activated: true, ...body, request: { url: `${targetUrl}/${i}` } });
      ids.push(c.id);
    }
    // Warm up (the agent's first runs load the runners), then the window.
    await new Promise((r) => setTimeout(r, Math.max(3000, 2 * periodS * 1000)));
    const from = new Date().toISOString();
    const cpu0 = cpuMs(serve.child.pid) + (agent ? cpuMs(agent.child.pid) : 0);
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const cpu1 = cpuMs(serve.child.pid) + (agent ? cpuMs(agent.child.pid) : 0);
    const t1 = Date.now();
    const elapsed = (t1 - t0) / 1000;
    const agentRss = agent ? rssMb(agent.child.pid) : null;
    const n = await recorded(serve.url, ids, from);
    // Due to recorded, from the sessions: runs due in the window (agent mode: the due time each carries).
    const db = new Database(state, { readonly: true });
    const sessions = db.prepare("SELECT data FROM records WHERE kind = 'checkSessions'").all().map((r) => JSON.parse(r.data));
    const queued = db.prepare("SELECT count(*) AS n FROM records WHERE kind = 'privateLocationRuns'").get().n;
    db.close();
    const late = sessions
      .filter((x) => x.agentRun && x.stoppedAt && Date.parse(x.agentRun.dueAt) >= t0 && Date.parse(x.agentRun.dueAt) < t1)
      .map((x) => Date.parse(x.stoppedAt) - Date.parse(x.agentRun.dueAt))
      .sort((a, b) => a - b);
    const due = rate * elapsed;
    return {
      mode,
      rate,
      periodS,
      runs: n,
      due: Math.round(due),
      runsPerSecond: n / elapsed,
      cpuMsPerRun: (cpu1 - cpu0) / Math.max(1, n),
      agentRssMb: agentRss,
      queuedAtEnd: mode === 'agent' ? queued : null,
      dueToRecordedMs: mode === 'agent' ? { p50: percentile(late, 50), p95: percentile(late, 95), n: late.length } : null,
    };
  } finally {
    if (agent && agent.child.exitCode === null) {
      agent.child.kill('SIGTERM');
      await new Promise((r) => agent.child.once('exit', r));
    }
    serve.child.kill('SIGTERM');
    await new Promise((r) => serve.child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

const target = createServer((req, res) => res.end('ok'));
await new Promise((r) => target.listen(0, '127.0.0.1', r));
const targetUrl = `http://127.0.0.1:${target.address().port}`;
try {
  const rows = [];
  for (const rate of RATES) {
    const own = await measure('service', targetUrl, rate);
    const viaAgent = await measure('agent', targetUrl, rate);
    const row = {
      rate,
      periodS: +own.periodS.toFixed(2),
      service: { runsPerSecond: +own.runsPerSecond.toFixed(1), cpuMsPerRun: +own.cpuMsPerRun.toFixed(2) },
      agent: {
        runsPerSecond: +viaAgent.runsPerSecond.toFixed(1),
        cpuMsPerRun: +viaAgent.cpuMsPerRun.toFixed(2),
        rssMb: +viaAgent.agentRssMb.toFixed(1),
        queuedAtEnd: viaAgent.queuedAtEnd,
        dueToRecordedMs: viaAgent.dueToRecordedMs,
      },
      overheadCpuMsPerRun: +(viaAgent.cpuMsPerRun - own.cpuMsPerRun).toFixed(2),
      cpuRatio: +(viaAgent.cpuMsPerRun / own.cpuMsPerRun).toFixed(2),
      // Kept up: (nearly) every due run recorded, and within one period of its due time.
      keptUp: viaAgent.runsPerSecond >= 0.9 * rate && (viaAgent.dueToRecordedMs.p95 ?? Infinity) <= own.periodS * 1000,
    };
    rows.push(row);
    console.log(`${CHECKS} URL monitors due ${rate}/s (each every ${row.periodS} s), ${SECONDS} s window`);
    console.log(`  service's own runs: ${row.service.runsPerSecond} runs/s, ${row.service.cpuMsPerRun} CPU ms per run`);
    console.log(`  one mac agent (--concurrency ${CONCURRENCY}): ${row.agent.runsPerSecond} runs/s, ${row.agent.cpuMsPerRun} CPU ms per run (service + agent), due to recorded p50 ${row.agent.dueToRecordedMs.p50} ms p95 ${row.agent.dueToRecordedMs.p95} ms, ${row.agent.queuedAtEnd} queued at the end, agent RSS ${row.agent.rssMb} MB${row.keptUp ? '' : ' (did not keep up)'}`);
    console.log(`  protocol overhead: +${row.overheadCpuMsPerRun} CPU ms per run (x${row.cpuRatio})`);
  }
  const sustained = Math.max(0, ...rows.filter((r) => r.keptUp).map((r) => r.rate));
  console.log(`sustained by one agent: ${sustained} runs/s (the highest rate tried it kept up with)`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ checks: CHECKS, seconds: SECONDS, concurrency: CONCURRENCY, rows, sustainedRunsPerSecond: sustained }, null, 2));
} finally {
  target.close();
}
