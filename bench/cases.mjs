// The bench's cases: each names the module that measures it, how to call it at full and quick
// size, and how its result becomes figures. Modules are imported only when their case runs, so a
// missing module costs its figures (reported as not run), never the whole run.
import { figure } from './lib/figures.mjs';

/** Targets of the issue, by figure. */
const TARGETS = {
  applyEfficiency: { op: '>=', value: 0.85 },
  rateShare: { op: '>=', value: 0.9 },
  validateRatio: { op: '<=', value: 3 },
  serveRatio: { op: '>=', value: 0.5 },
  soakRssMb: { op: '<=', value: 50 },
  restartMs: { op: '<=', value: 2000 },
  analyticsP95Ms: { op: '<=', value: 100 },
  // Issue 28: the soak with page traffic keeps the event-loop delay's p99 under 20 ms.
  loopDelayP99Ms: { op: '<=', value: 20 },
  multiStepOverhead: { op: '<=', value: 1.25 },
  browserOverhead: { op: '<=', value: 1.25 },
  httpRunsPerSecond: { op: '>=', value: 200 },
  // Issue 25 drains 1,000 queued notifications at 100/s or more: the senders alone must allow it.
  senderAttemptsPerSecond: { op: '>=', value: 100 },
  alertP95Ms: { op: '<=', value: 1000 },
  alertDrainPerSecond: { op: '>=', value: 100 },
  icmpRatio: { op: '>=', value: 0.8 },
  sandboxOverheadMs: { op: '<=', value: 50 },
  // Issue 30: `mac --version` costs little more than starting node (it loads no command's code).
  cliStartRatio: { op: '<=', value: 2.5 },
  // Issue 30: the tree memory poller costs at most half the scan of every process it replaced.
  treeMemoryRatio: { op: '<=', value: 0.5 },
};

/** Every case, in the order they run; `figures` lists what a case reports when it cannot run. */
export const CASES = [
  {
    name: 'plan',
    module: './plan.mjs',
    figures: [
      { bench: 'plan-requests', figure: 1, title: 'no-change plan: HTTP requests, baseline / mac', target: { op: '>=', value: 90 } },
      { bench: 'plan-vs-floor', figure: 2, title: 'plan wall time at 50 ms latency, mac / max(YAML parse floor, network floor)', target: { op: '<=', value: 1.3 } },
      { bench: 'plan-vs-baseline', figure: 2, title: 'plan wall time at 50 ms latency, baseline / mac', target: { op: '>=', value: 30 } },
      { bench: 'plan-rss', figure: 5, title: 'peak RSS of the plan', target: { op: '<=', value: 300 } },
    ],
    run: (m, { quick, log }) => m.main({ quick, log }),
  },
  {
    name: 'apply',
    module: './apply.mjs',
    figures: [
      { bench: 'apply-latency', figure: 3, title: 'apply creates at 50 ms latency, concurrency 16: efficiency', target: TARGETS.applyEfficiency },
      { bench: 'apply-rate-limit', figure: 4, title: 'apply under --rate-limit 50/1: share of the limit', target: TARGETS.rateShare },
    ],
    run: async (m, { quick, log }) => {
      // The same 1,000 creates in a quick run (about 4 s): at 200, the two list round trips the
      // stage must keep (stale-plan re-read, convergence re-read) alone cap efficiency near 0.83.
      const n = 1000;
      log(`apply: ${n} creates at --latency 50, concurrency 16 ...`);
      const a = await m.benchLatency({ n, latencyMs: 50, concurrency: 16 });
      const changes = quick ? 150 : 500;
      log(`apply: ${changes} creates under --rate-limit 50/1 ...`);
      const b = await m.benchRateLimit({ n: changes, requests: 50, perSeconds: 1 });
      const failures = (r) => (r.failed > 0 ? ` MISS: ${r.failed} changes failed.` : '');
      return [
        figure({
          bench: a.bench,
          figure: 3,
          title: `apply of ${a.n} creates at ${a.latencyMs} ms latency, concurrency ${a.concurrency}: efficiency`,
          value: a.failed > 0 ? 0 : a.efficiency,
          target: TARGETS.applyEfficiency,
          details: { n: a.n, quick, stageMs: a.stageMs, idealMs: a.idealMs, processMs: a.processMs, failed: a.failed, rawEfficiency: a.rawEfficiency },
          note: `N x latency / concurrency = ${a.idealMs} ms, apply stage ${a.stageMs} ms (process ${a.processMs} ms); bare undici loop: efficiency ${a.rawEfficiency}.${failures(a)}`,
        }),
        figure({
          bench: b.bench,
          figure: 4,
          title: `apply of ${b.n} changes under --rate-limit ${b.limit}: share of the limit`,
          value: b.failed > 0 ? 0 : b.shareOfLimit,
          target: TARGETS.rateShare,
          details: { n: b.n, quick, requests: b.requests, stageMs: b.stageMs, requestsPerSecond: b.requestsPerSecond, failed: b.failed },
          note: `${b.requests} requests in ${b.stageMs} ms = ${b.requestsPerSecond}/s, ${b.failed} failed.${failures(b)}`,
        }),
      ];
    },
  },
  {
    name: 'validate',
    module: './validate.mjs',
    figures: [{ bench: 'validate', figure: 5, title: 'mac validate, mac / YAML-parse floor', target: TARGETS.validateRatio }],
    run: async (m, { quick, log }) => {
      const n = quick ? 1000 : 10_000;
      log(`validate: ${n} definitions against parsing their YAML alone ...`);
      const r = await m.runValidateBench({ n, reps: quick ? 3 : 5 });
      return [
        figure({
          bench: r.bench,
          figure: 5,
          title: `mac validate of ${r.n} definitions, mac / YAML-parse floor`,
          value: r.ratio,
          target: TARGETS.validateRatio,
          details: { n: r.n, quick, macMs: r.macMs, floorMs: r.floorMs },
          note: `load + validate ${r.macMs} ms, YAML parse alone ${r.floorMs} ms (medians, in process)`,
        }),
      ];
    },
  },
  {
    name: 'serve',
    module: './serve.mjs',
    figures: [{ bench: 'serve-throughput', figure: 6, title: 'GET /v1/checks?limit=100 throughput, mac serve / bare node:http', target: TARGETS.serveRatio }],
    run: async (m, { quick, log }) => {
      const seconds = quick ? 2 : 5;
      log(`serve: GET /v1/checks?limit=100 for ${seconds} s against mac serve and a bare node:http server ...`);
      const r = await m.main({ seconds, warmupSeconds: 1 });
      return [
        figure({
          bench: r.bench,
          figure: 6,
          title: 'GET /v1/checks?limit=100 throughput, mac serve / bare node:http',
          value: r.ratio,
          target: TARGETS.serveRatio,
          details: { quick, macRps: r.macRps, bareRps: r.bareRps, concurrency: r.concurrency, seconds: r.seconds },
          note: `mac serve ${r.macRps} req/s, bare node:http ${r.bareRps} req/s (same ${r.bytes} bytes, ${r.concurrency} connections, ${r.seconds} s)`,
        }),
      ];
    },
  },
  {
    name: 'soak',
    module: './soak.mjs',
    figures: [
      { bench: 'serve-soak-rss', figure: 7, title: 'mac serve on SQLite: RSS growth after the first simulated hour', target: TARGETS.soakRssMb },
      { bench: 'serve-soak-restart', figure: 8, title: 'mac serve on SQLite: restart to the first answered request', target: TARGETS.restartMs },
      { bench: 'serve-soak-analytics', figure: 9, title: 'mac serve on SQLite: analytics p95, last30Days of one check', target: TARGETS.analyticsP95Ms },
      { bench: 'serve-soak-loop-delay', figure: 20, title: 'mac serve on SQLite under 50 public requests/s: event-loop delay p99 (median of 2 s windows)', target: TARGETS.loopDelayP99Ms },
    ],
    run: async (m, { quick, log }) => {
      // Full: 1,000 checks for 24 simulated hours at --time-scale 120 (12 minutes) with public page
      // traffic of 50 requests/s; quick: 50 for 3 at 720 (15 s), with the same traffic.
      const r = await m.main(quick ? { checks: 50, hours: 3, timeScale: 720, pages: 50, log } : { pages: 50, log });
      const details = { quick, checks: r.checks, hours: r.hours, timeScale: r.timeScale, retentionDays: r.retentionDays };
      const sizes = r.samples.map((x) => x.dbMb.toFixed(1)).join(', ');
      return [
        figure({
          bench: 'serve-soak-rss',
          figure: 7,
          title: 'mac serve on SQLite: RSS growth after the first simulated hour',
          value: r.rssGrowthMb,
          unit: 'MB',
          target: TARGETS.soakRssMb,
          details: { ...details, rssFirstHourMb: r.rssFirstHourMb, rssMb: r.samples.map((x) => x.rssMb) },
          note: `RSS ${r.rssFirstHourMb.toFixed(1)} MB after hour 1; database MB per simulated hour: ${sizes}`,
        }),
        figure({ bench: 'serve-soak-restart', figure: 8, title: 'mac serve on SQLite: restart to the first answered request', value: r.restartMs, unit: 'ms', target: TARGETS.restartMs, details }),
        figure({ bench: 'serve-soak-analytics', figure: 9, title: 'mac serve on SQLite: analytics p95, last30Days of one check', value: r.analyticsP95Ms, unit: 'ms', target: TARGETS.analyticsP95Ms, details }),
        figure({
          bench: 'serve-soak-loop-delay',
          figure: 20,
          title: 'mac serve on SQLite under 50 public requests/s: event-loop delay p99 (median of 2 s windows)',
          value: r.pages.loopDelayMs.p99Median,
          unit: 'ms',
          target: TARGETS.loopDelayP99Ms,
          details: { ...details, pages: r.pages },
          note: `worst window p99 ${r.pages.loopDelayMs.p99Worst} ms; ${r.pages.answered} of ${r.pages.requests} page requests answered, p95 ${r.pages.latencyMs.p95} ms`,
        }),
      ];
    },
  },
  {
    name: 'multistep',
    module: './multistep.mjs',
    figures: [{ bench: 'multistep-runs', figure: 10, title: 'multi-step runs: time through mac / bare playwright test', target: TARGETS.multiStepOverhead }],
    run: async (m, { quick, log }) => {
      const r = await m.main({ n: quick ? 4 : 12, log });
      return [
        figure({
          bench: r.bench,
          figure: 10,
          title: `multi-step runs (${r.n}, pool of ${r.concurrency}): time through mac / bare playwright test`,
          value: r.failed > 0 ? Infinity : r.overhead,
          target: TARGETS.multiStepOverhead,
          details: { quick, n: r.n, concurrency: r.concurrency, macMs: r.macMs, bareMs: r.bareMs, runsPerSecond: r.runsPerSecond, failed: r.failed },
          note: `${r.runsPerSecond.toFixed(2)} runs/s through mac, ${r.bareRunsPerSecond.toFixed(2)} runs/s bare (two requests per script, local server).${r.failed > 0 ? ` MISS: ${r.failed} runs failed.` : ''}`,
        }),
      ];
    },
  },
  {
    name: 'browser',
    module: './browser.mjs',
    figures: [{ bench: 'browser-runs', figure: 17, title: 'browser check runs: time through mac / bare playwright test', target: TARGETS.browserOverhead }],
    run: async (m, { quick, log }) => {
      const r = await m.main({ n: quick ? 4 : 8, rounds: quick ? 1 : 3, log });
      return [
        figure({
          bench: r.bench,
          figure: 17,
          title: `browser check runs (${r.n}, pool of ${r.concurrency}): time through mac / bare playwright test`,
          value: r.failed > 0 || r.withVitals < r.n ? Infinity : r.overhead,
          target: TARGETS.browserOverhead,
          details: { quick, n: r.n, rounds: r.rounds, concurrency: r.concurrency, macMs: r.macMs, bareMs: r.bareMs, ratios: r.ratios, runsPerMinute: r.runsPerMinute, failed: r.failed, withVitals: r.withVitals },
          note: `${r.runsPerMinute.toFixed(1)} runs/min through mac, ${r.bareRunsPerMinute.toFixed(1)} runs/min bare (two pages per script in Chromium, local site).${r.failed > 0 ? ` MISS: ${r.failed} runs failed.` : ''}`,
        }),
      ];
    },
  },
  {
    name: 'sandbox',
    module: './sandbox.mjs',
    figures: [{ bench: 'sandbox-overhead', figure: 18, title: 'script sandbox: bubblewrap + node start minus plain node start', target: TARGETS.sandboxOverheadMs }],
    run: async (m, { quick, log }) => {
      const r = await m.main({ n: quick ? 10 : 30, log });
      return [
        figure({
          bench: r.bench,
          figure: 18,
          title: `script sandbox overhead per run (median of ${r.n} node starts each)`,
          value: r.overheadMs,
          unit: 'ms',
          target: TARGETS.sandboxOverheadMs,
          details: { quick, n: r.n, plainMs: r.plainMs, sandboxMs: r.sandboxMs, prepMs: r.prepMs, bwrapStartMs: r.bwrapStartMs },
          note: `node -e 0: ${r.plainMs} ms plain, ${r.sandboxMs} ms in bubblewrap (namespaces, binds, limits), ${r.prepMs} ms to build the command; bwrap alone ${r.bwrapStartMs} ms.`,
        }),
      ];
    },
  },
  {
    name: 'http',
    module: './http.mjs',
    figures: [{ bench: 'http-runs', figure: 11, title: 'URL-monitor runs per second against a local HTTP server', target: TARGETS.httpRunsPerSecond }],
    run: async (m, { quick, log }) => {
      log('http: URL-monitor runs against a local server, interleaved with a bare undici loop ...');
      const r = await m.main({ quick, log });
      return [
        figure({
          bench: r.bench,
          figure: 11,
          title: 'URL-monitor runs per second against a local HTTP server',
          value: r.failures > 0 ? 0 : r.runsPerSecond,
          unit: 'runs/s',
          target: TARGETS.httpRunsPerSecond,
          details: {
            quick,
            bareRequestsPerSecond: Math.round(r.bareRequestsPerSecond),
            ratio: Number(r.ratio.toFixed(2)),
            runnerCpuMs: Number(r.runnerCpuMs.toFixed(3)),
            bareCpuMs: Number(r.bareCpuMs.toFixed(3)),
            concurrency: r.concurrency,
            rounds: r.rounds,
            failures: r.failures,
          },
          note: `bare undici loop (fresh connection per request) ${Math.round(r.bareRequestsPerSecond)}/s: runner / bare = ${r.ratio.toFixed(2)}; CPU per run ${r.runnerCpuMs.toFixed(2)} ms, per bare request ${r.bareCpuMs.toFixed(2)} ms; concurrency ${r.concurrency}, medians of ${r.rounds} interleaved rounds.${r.failures > 0 ? ` MISS: ${r.failures} runs failed.` : ''}`,
        }),
      ];
    },
  },
  {
    name: 'icmp',
    module: './icmp.mjs',
    figures: [{ bench: 'icmp-runs', figure: 19, title: 'ICMP runs (1 ping of 127.0.0.1) per second, runner / bare ping loop', target: TARGETS.icmpRatio }],
    run: async (m, { quick, log }) => {
      log('icmp: ICMP-monitor runs of 127.0.0.1, interleaved with a bare ping loop ...');
      const r = await m.main({ quick, log });
      return [
        figure({
          bench: r.bench,
          figure: 19,
          title: 'ICMP runs (1 ping of 127.0.0.1) per second, runner / bare ping loop',
          value: r.failures > 0 ? 0 : r.ratio,
          target: TARGETS.icmpRatio,
          details: { quick, runsPerSecond: Math.round(r.runsPerSecond), barePerSecond: Math.round(r.barePerSecond), runnerCpuMs: Number(r.runnerCpuMs.toFixed(3)), bareCpuMs: Number(r.bareCpuMs.toFixed(3)), concurrency: r.concurrency, rounds: r.rounds, failures: r.failures },
          note: `runner ${Math.round(r.runsPerSecond)}/s, bare ping ${Math.round(r.barePerSecond)}/s; CPU of this process per run ${r.runnerCpuMs.toFixed(2)} ms, per bare ping ${r.bareCpuMs.toFixed(2)} ms; concurrency ${r.concurrency}, medians of ${r.rounds} interleaved rounds.${r.failures > 0 ? ` MISS: ${r.failures} runs failed.` : ''}`,
        }),
      ];
    },
  },
  {
    name: 'analytics',
    module: './analytics.mjs',
    figures: [
      { bench: 'serve-analytics-sqlite', figure: 12, title: 'analytics p95 on SQLite, last30Days of a check with 40,000 results', target: TARGETS.analyticsP95Ms },
      { bench: 'serve-analytics-postgres', figure: 13, title: 'analytics p95 on PostgreSQL, last30Days of a check with 40,000 results', target: TARGETS.analyticsP95Ms },
    ],
    run: async (m, { quick, log }) => {
      // Quick: SQLite only (filling PostgreSQL takes about half a minute more).
      const r = await m.main({ postgres: !quick, log });
      return Object.entries(r.stores).map(([store, f]) =>
        figure({
          bench: `serve-analytics-${store}`,
          figure: store === 'sqlite' ? 12 : 13,
          title: `analytics p95 on ${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, last30Days of a check with ${r.results.toLocaleString('en')} results`,
          value: Math.max(...Object.values(f).filter((x) => x.p95 !== undefined).map((x) => x.p95)),
          unit: 'ms',
          target: TARGETS.analyticsP95Ms,
          details: { quick, ...f },
          note: `${Object.entries(f)
            .filter(([, x]) => x.p95 !== undefined)
            .map(([label, x]) => `${label}: p50 ${x.p50.toFixed(0)} ms, p95 ${x.p95.toFixed(0)} ms`)
            .join('; ')}; in process, the database's reduction ${f.inProcess.databaseMs.toFixed(0)} ms against ${f.inProcess.javascriptMs.toFixed(0)} ms in JavaScript over the fields read from the store`,
        }),
      );
    },
  },
  {
    name: 'senders',
    module: './alert-senders.mjs',
    figures: [{ bench: 'alert-senders', figure: 14, title: 'alert delivery attempts per second to a local webhook receiver (senders alone)', target: TARGETS.senderAttemptsPerSecond }],
    run: async (m, { quick, log }) => {
      const r = await m.main({ quick, log });
      const { http, mail } = r;
      return [
        figure({
          bench: r.bench,
          figure: 14,
          title: 'alert delivery attempts per second to a local webhook receiver (senders alone)',
          value: http.failures > 0 ? 0 : http.perSecond,
          unit: '/s',
          target: TARGETS.senderAttemptsPerSecond,
          details: { quick, httpP95Ms: Number(http.p95Ms.toFixed(1)), mailPerSecond: Math.round(mail.perSecond), mailP95Ms: Number(mail.p95Ms.toFixed(1)), mailFailures: mail.failures, mailsReceived: mail.received },
          note: `${http.n} webhook attempts at concurrency ${http.concurrency}: p50 ${http.p50Ms.toFixed(0)} ms, p95 ${http.p95Ms.toFixed(0)} ms; mail over SMTP (pooled, ${mail.n} at concurrency ${mail.concurrency}): ${Math.round(mail.perSecond)}/s, p95 ${mail.p95Ms.toFixed(0)} ms, ${mail.received} received.${http.failures + mail.failures > 0 ? ` MISS: ${http.failures + mail.failures} attempts failed (${http.lastError || mail.lastError}).` : ''}`,
        }),
      ];
    },
  },
  {
    name: 'alerts',
    module: './alerts.mjs',
    figures: [
      { bench: 'alert-latency', figure: 15, title: 'alert from a failing run recorded to the receiver, p95', target: TARGETS.alertP95Ms },
      { bench: 'alert-drain', figure: 16, title: 'queued notifications drained on SQLite, per second', target: TARGETS.alertDrainPerSecond },
    ],
    run: async (m, { quick, log }) => {
      const { latency: a, drain: b } = await m.main({ quick, log });
      return [
        figure({
          bench: a.bench,
          figure: 15,
          title: `alert from a failing run recorded to a local webhook's answer, p95 of ${a.n} (time scale 1)`,
          value: a.p95Ms,
          unit: 'ms',
          target: TARGETS.alertP95Ms,
          details: { quick, ...a },
          note: `p50 ${a.p50Ms} ms, p95 ${a.p95Ms} ms, max ${a.maxMs} ms`,
        }),
        figure({
          bench: b.bench,
          figure: 16,
          title: `${b.n} queued notifications drained on SQLite (10 channels, one local receiver), per second`,
          value: b.left > 0 ? 0 : b.perSecond,
          unit: '/s',
          target: TARGETS.alertDrainPerSecond,
          details: { quick, ...b },
          note: `${b.delivered} deliveries in ${b.seconds} s; ${b.left} left queued${b.delivered > b.n ? ` (${b.delivered - b.n} sent twice after a timeout: at least once)` : ''}`,
        }),
      ];
    },
  },
  {
    name: 'cli-start',
    module: './cli-start.mjs',
    figures: [{ bench: 'cli-start', figure: 21, title: 'CPU of `mac --version` / CPU of `node -e 0`', target: TARGETS.cliStartRatio }],
    run: async (m, { quick, log }) => {
      const r = await m.main({ runs: quick ? 3 : 7, log });
      const row = (name) => r.rows.find((x) => x.scenario === name);
      const floor = row('node -e 0 (floor)').medianMs;
      const version = row('mac --version').medianMs;
      return [
        figure({
          bench: r.bench,
          figure: 21,
          title: 'CPU (user+sys) of `mac --version` / CPU of `node -e 0`, medians',
          value: version / floor,
          target: TARGETS.cliStartRatio,
          details: { quick, runs: r.runs, rows: r.rows.map(({ scenario, medianMs }) => ({ scenario, medianMs })) },
          note: r.rows.map((x) => `${x.scenario} ${x.medianMs} ms`).join(', '),
        }),
      ];
    },
  },
  {
    name: 'tree-memory',
    module: './tree-memory.mjs',
    figures: [{ bench: 'tree-memory', figure: 22, title: 'CPU of the tree memory poller / CPU of a scan of every process at every poll', target: TARGETS.treeMemoryRatio }],
    run: async (m, { quick, log }) => {
      const r = await m.main({ seconds: quick ? 4 : 10, rounds: quick ? 1 : 3, log });
      return [
        figure({
          bench: r.bench,
          figure: 22,
          title: 'CPU of the tree memory poller / CPU of a scan of every process at every poll (medians of alternated rounds)',
          value: r.ratio,
          target: TARGETS.treeMemoryRatio,
          details: { quick, seconds: r.seconds, rounds: r.rounds, processes: r.processes, ratios: r.ratios },
          note: `${r.macCpuMsPerSecond} ms of CPU per second watched, against ${r.floorCpuMsPerSecond} ms for the full scan (${r.processes} processes on the machine).`,
        }),
      ];
    },
  },
];
