// Preloaded (`node --import`) into a process whose event loop a bench watches: records the loop's
// delay (perf_hooks.monitorEventLoopDelay), its longest held stretches, and how long the longest
// HTTP request took from undici's dispatch to its answer's headers (undici's diagnostics
// channels); writes them as JSON to the file named by MAC_BENCH_LOOP_FILE when the process exits.
// Not loaded into timed runs: it is for the counted run, whose time is not a figure.
import { writeFileSync } from 'node:fs';
import dc from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.MAC_BENCH_LOOP_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const t0 = performance.now();
  // Held stretches: gaps between the ticks of a 10 ms timer longer than 100 ms.
  const held = [];
  let last = t0;
  const tick = setInterval(() => {
    const now = performance.now();
    if (now - last > 100) held.push({ atMs: Math.round(last - t0), ms: Math.round(now - last) });
    last = now;
  }, 10);
  tick.unref();
  const sent = new WeakMap();
  let requests = 0;
  let longestRequestMs = 0;
  let firstRequestMs;
  let lastAnswerMs;
  dc.subscribe('undici:request:create', ({ request }) => {
    requests++;
    firstRequestMs ??= performance.now() - t0;
    sent.set(request, performance.now());
  });
  dc.subscribe('undici:request:headers', ({ request }) => {
    lastAnswerMs = performance.now() - t0;
    const at = sent.get(request);
    if (at !== undefined) longestRequestMs = Math.max(longestRequestMs, performance.now() - at);
  });
  process.once('exit', () => {
    histogram.disable();
    const during = held.filter((h) => firstRequestMs !== undefined && lastAnswerMs !== undefined && h.atMs + h.ms > firstRequestMs && h.atMs < lastAnswerMs);
    const longest = (list) => list.reduce((m, h) => Math.max(m, h.ms), 0);
    writeFileSync(
      file,
      JSON.stringify({
        loopDelayMaxMs: Math.round(histogram.max / 1e6),
        loopDelayP99Ms: Math.round(histogram.percentile(99) / 1e6),
        heldMaxMs: longest(held),
        heldMaxWhileFetchingMs: longest(during),
        requests,
        fetchMs: firstRequestMs === undefined ? null : Math.round(lastAnswerMs - firstRequestMs),
        longestRequestMs: Math.round(longestRequestMs),
        exitMs: Math.round(performance.now() - t0),
      }),
    );
  });
}
