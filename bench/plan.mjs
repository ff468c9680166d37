// Figures 1, 2 and the memory half of 5: a no-change plan of 12,200 resources (10,000 checks,
// 1,000 snippets, 200 dashboards, 1,000 variables; a tenth with --quick), its requests and wall
// time against the per-resource refresh baseline and the floor, and the plan process's peak RSS.
// The floor is measured side by side with the plan, runs interleaved: the YAML parse floor (a
// process that only reads and parses the same files) and the network floor (the very list
// requests the plan sent, replayed alone at the plan's concurrency); mac loads while it fetches,
// so its floor is the larger of the two.
// Run after a build: `node bench/plan.mjs [--quick]`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeProject } from './definitions.mjs';
import { BASELINE_CONCURRENCY, refreshEach, resourcePaths } from './lib/baseline.mjs';
import { figure, median, round } from './lib/figures.mjs';
import { runMac } from './lib/mac.mjs';
import { startCountingProxy } from './lib/proxy.mjs';
import { cleanup, tempDir } from './lib/resources.mjs';
import { API_KEY, startService } from './lib/service.mjs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The service latency of the timed runs, in milliseconds. */
const LATENCY_MS = 50;

/** Resources of the full run; --quick plans a tenth. */
const FULL = { checks: 10_000, snippets: 1_000, dashboards: 200, variables: 1_000 };

/** Changes in flight while populating: the service has no latency then, so the CPU bounds it. */
const POPULATE_CONCURRENCY = 32;

const env = (url) => ({ MAC_API_URL: url, MAC_API_KEY: API_KEY });

const seconds = (run) => `${(run.wallMs / 1000).toFixed(2)} s${run.cpuMs === null ? '' : ` (CPU ${(run.cpuMs / 1000).toFixed(2)} s)`}`;

/** Fails the bench with what the command printed. */
function fail(what, run) {
  return new Error(`${what} (exit ${run.code})\n${run.stderr.slice(-2000)}\n${run.stdout.slice(0, 2000)}`);
}

/** Creates every definition with `mac apply --yes` against a service without latency or limits. */
async function populate(dir, state, total, log) {
  const service = await startService({ state, rateLimit: '0/60' });
  try {
    log(`populating ${total} resources with mac apply (no latency, no rate limit) ...`);
    const run = await runMac(['apply', dir, '--yes', '--format', 'json', '--rate-limit', '0/1', '--concurrency', String(POPULATE_CONCURRENCY)], { env: env(service.url) });
    if (run.code !== 0) throw fail('populating apply failed', run);
    const { summary } = JSON.parse(run.stdout);
    if (summary.applied !== total || summary.failed !== 0) throw fail(`populating apply applied ${summary.applied} of ${total}, ${summary.failed} failed`, run);
    log(`  applied ${summary.applied} in ${(run.wallMs / 1000).toFixed(1)} s`);
  } finally {
    await service.stop();
  }
}

/**
 * The first plan after populating, through a counting proxy: it must be a no-change plan,
 * made of GETs only. Returns the proxy's counts (requests, pages, peak concurrency).
 */
async function countedPlan(dir, serviceUrl, total) {
  const proxy = await startCountingProxy(serviceUrl);
  // This run's event loop is watched (bench/lib/loop-delay.mjs): how long the plan's own work held
  // it, above all while its requests were in flight. The timed runs are not watched.
  const loopFile = join(await tempDir('plan-loop'), 'loop.json');
  try {
    const run = await runMac(['plan', dir, '--format', 'json', '--detailed-exitcode'], {
      env: { ...env(proxy.url), MAC_BENCH_LOOP_FILE: loopFile },
      nodeArgs: ['--import', pathToFileURL(LOOP_DELAY_SCRIPT).href],
    });
    if (run.code !== 0 && run.code !== 2) throw fail('mac plan failed', run);
    const plan = JSON.parse(run.stdout);
    const { create, update, delete: del, noop } = plan.summary;
    if (run.code !== 0 || create + update + del !== 0 || noop !== total) {
      const first = plan.changes.filter((c) => c.action !== 'noop').slice(0, 3);
      throw new Error(`the plan after populating is not a no-change plan: ${JSON.stringify(plan.summary)} (expected ${total} noop)\n${JSON.stringify(first, null, 2)}`);
    }
    const { total: requests, byMethod, byPath, peakInFlight, gets } = proxy.stats;
    if ((byMethod.GET ?? 0) !== requests) throw new Error(`a no-change plan sent requests other than GET: ${JSON.stringify(byMethod)}`);
    const loop = JSON.parse(await readFile(loopFile, 'utf8'));
    return { requests, pages: requests, byPath, peakInFlight, gets, loop };
  } finally {
    await proxy.close();
  }
}

const FLOOR_SCRIPT = fileURLToPath(new URL('./lib/yaml-floor.mjs', import.meta.url));
const LOOP_DELAY_SCRIPT = fileURLToPath(new URL('./lib/loop-delay.mjs', import.meta.url));

/**
 * The YAML parse floor: a process that reads and parses the project's YAML and does nothing else.
 * Resolves to its wall time and its CPU time (ms).
 */
function yamlFloor(dir, total) {
  const started = performance.now();
  const child = spawn(process.execPath, [FLOOR_SCRIPT, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const wallMs = performance.now() - started;
      const [docs, cpuMs] = out.trim().split(' ').map(Number);
      if (code !== 0 || docs !== total) reject(new Error(`the YAML floor parsed ${out.trim()} documents (exit ${code}), expected ${total}`));
      else resolve({ wallMs, cpuMs });
    });
  });
}

/** Runs the case; returns its figures. `log` receives progress lines. */
export async function main({ quick = false, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const scale = quick ? 0.1 : 1;
  const counts = Object.fromEntries(Object.entries(FULL).map(([k, v]) => [k, Math.round(v * scale)]));
  // The counted plan already warmed the file cache; quick mode times one run of each.
  const reps = quick ? 1 : 3;
  try {
    const dir = await tempDir('plan-defs');
    const total = await writeProject(dir, counts);
    const state = join(await tempDir('plan-state', { fast: true }), 'state.jsonl');
    log(`plan: ${total} resources (${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')})`);
    await populate(dir, state, total, log);

    const service = await startService({ state, latencyMs: LATENCY_MS, rateLimit: '0/60' });
    try {
      log(`counting the requests of a no-change plan (service latency ${LATENCY_MS} ms) ...`);
      const counted = await countedPlan(dir, service.url, total);
      const { loop } = counted;
      log(`  ${counted.requests} requests, at most ${counted.peakInFlight} at once; event loop held at most ${loop.heldMaxMs} ms (${loop.heldMaxWhileFetchingMs} ms while fetching, ${loop.fetchMs} ms), longest request ${loop.longestRequestMs} ms`);

      log(`timing mac plan, the YAML parse floor and the network floor (${reps} runs each, interleaved) ...`);
      const plans = [];
      const floors = [];
      const fetches = [];
      for (let r = 0; r < reps; r++) {
        const plan = await runMac(['plan', dir, '--detailed-exitcode'], { env: env(service.url) });
        if (plan.code !== 0) throw fail('a timed no-change plan did not exit 0', plan);
        plans.push(plan);
        floors.push(await yamlFloor(dir, total));
        fetches.push((await refreshEach(service.url, counted.gets, counted.peakInFlight)).wallMs);
        const floor = floors.at(-1);
        log(`  plan ${seconds(plan)} (peak RSS ${plan.peakRssMb.toFixed(0)} MB), YAML parse floor ${(floor.wallMs / 1000).toFixed(2)} s (CPU ${(floor.cpuMs / 1000).toFixed(2)} s), network floor ${(fetches.at(-1) / 1000).toFixed(2)} s`);
      }
      const planMs = median(plans.map((p) => p.wallMs));
      const parseFloorMs = median(floors.map((f) => f.wallMs));
      const parseFloorCpuMs = median(floors.map((f) => f.cpuMs));
      const fetchFloorMs = median(fetches);
      // What the network floor would be with no cost but the latency: pages x latency / concurrency.
      const idealFetchMs = (counted.pages * LATENCY_MS) / counted.peakInFlight;
      // Loading and fetching overlap: the floor is the larger of the two, not their sum.
      const floorMs = Math.max(parseFloorMs, fetchFloorMs);
      const peakRssMb = Math.max(...plans.map((p) => p.peakRssMb));
      // CPU times cross-check the wall-time ratio on a busy machine (null without GNU time).
      const planCpuMs = plans[0].cpuMs === null ? null : median(plans.map((p) => p.cpuMs));
      const cpuNote = planCpuMs === null ? '' : `; CPU time: plan ${round(planCpuMs / 1000)} s, YAML parse floor ${round(parseFloorCpuMs / 1000)} s`;

      log(`per-resource baseline: ${total} GETs at concurrency ${BASELINE_CONCURRENCY} ...`);
      const paths = await resourcePaths(service.url);
      if (paths.length !== total) throw new Error(`the account holds ${paths.length} resources, expected ${total}`);
      const baseline = await refreshEach(service.url, paths);
      log(`  ${baseline.requests} requests in ${(baseline.wallMs / 1000).toFixed(1)} s`);

      const size = { resources: total, quick };
      return [
        figure({
          bench: 'plan-requests',
          figure: 1,
          title: `no-change plan of ${total} resources: HTTP requests, baseline / mac`,
          value: baseline.requests / counted.requests,
          target: { op: '>=', value: 90 },
          details: { ...size, macRequests: counted.requests, macRequestsByPath: counted.byPath, baselineRequests: baseline.requests },
          note: `mac ${counted.requests} GETs (${Object.entries(counted.byPath).map(([path, n]) => `${path} ${n}`).join(', ')}), baseline ${baseline.requests} (one GET per resource)`,
        }),
        figure({
          bench: 'plan-vs-floor',
          figure: 2,
          title: `plan wall time at ${LATENCY_MS} ms latency, mac / floor`,
          value: planMs / floorMs,
          target: { op: '<=', value: 1.3 },
          details: {
            ...size,
            planMs: Math.round(planMs),
            floorMs: Math.round(floorMs),
            parseFloorMs: Math.round(parseFloorMs),
            fetchFloorMs: Math.round(fetchFloorMs),
            idealFetchMs: Math.round(idealFetchMs),
            pages: counted.pages,
            latencyMs: LATENCY_MS,
            concurrency: counted.peakInFlight,
            planCpuMs,
            parseFloorCpuMs,
            runs: { planMs: plans.map((p) => Math.round(p.wallMs)), parseFloorMs: floors.map((f) => Math.round(f.wallMs)), fetchFloorMs: fetches.map(Math.round) },
            // The counted (untimed) plan's event loop: its longest held stretches, overall and while fetching.
            countedPlanLoop: counted.loop,
          },
          note: `mac plan ${Math.round(planMs)} ms; floor ${Math.round(floorMs)} ms = max(YAML parse floor ${Math.round(parseFloorMs)} ms, network floor ${Math.round(fetchFloorMs)} ms: the plan's ${counted.pages} list requests replayed alone, ${counted.peakInFlight} in flight; ${LATENCY_MS} ms latency alone would be ${Math.round(idealFetchMs)} ms) (medians of ${reps}, interleaved)${cpuNote}`,
        }),
        figure({
          bench: 'plan-vs-baseline',
          figure: 2,
          title: `plan wall time at ${LATENCY_MS} ms latency, baseline / mac`,
          value: baseline.wallMs / planMs,
          target: { op: '>=', value: 30 },
          details: { ...size, planMs: Math.round(planMs), baselineMs: Math.round(baseline.wallMs), baselineConcurrency: BASELINE_CONCURRENCY, latencyMs: LATENCY_MS },
          note: `baseline ${round(baseline.wallMs / 1000)} s (${baseline.requests} GETs, ${BASELINE_CONCURRENCY} at once), mac plan ${round(planMs / 1000)} s${quick ? '; the target is for 12,200 resources: at a tenth, start-up and loading weigh ten times more' : ''}`,
        }),
        figure({
          bench: 'plan-rss',
          figure: 5,
          title: `peak RSS of the ${total}-resource plan`,
          value: peakRssMb,
          unit: 'MB',
          target: { op: '<=', value: 300 },
          details: { ...size, runs: reps },
          note: `highest of ${reps} timed mac plan process${reps > 1 ? 'es' : ''}`,
        }),
      ];
    } finally {
      await service.stop();
    }
  } finally {
    await cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await main({ quick: process.argv.includes('--quick') });
  for (const f of figures) console.log(JSON.stringify(f));
}
