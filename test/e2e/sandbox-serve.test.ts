import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServe, callApi, waitFor, type Served } from '../helpers/serve.js';
import { escapes, expected, expectErrors, SECRET, startEscapeTarget, type EscapeTarget } from './sandbox-escapes.js';

// Escapes from the script sandbox run by `mac serve` on its schedule, in the real service under
// bubblewrap (with `mac test`: sandbox.test.ts; accounts sharing the runs and a service without
// bubblewrap: sandbox-serve-accounts.test.ts). Each attempt must fail with a recorded error while
// the service keeps answering and its other checks keep their schedule.
let target: EscapeTarget;
let served: Served | undefined;
beforeAll(async () => {
  target = await startEscapeTarget();
});
afterAll(() => target?.close());
afterEach(async () => {
  await served?.stop();
  served = undefined;
});

describe('script sandbox escapes with mac serve', () => {
  it('every escape run on schedule fails with a recorded error; the service answers throughout and a URL monitor keeps its schedule', async () => {
    const dir = await target.tempDir('mac-sandbox-serve-');
    const keysFile = join(dir, 'keys.json');
    const dbFile = join(dir, 'state.db');
    await writeFile(keysFile, JSON.stringify({ keys: [{ key: SECRET, account: 'a', role: 'admin' }] }));
    // frequency 1 at time scale 30: due every 2 s.
    served = await startServe(['--keys', keysFile, '--state', dbFile, '--time-scale', '30'], { DATABASE_PASSWORD: SECRET });
    expect(served.log()).toMatch(/scripts: sandboxed \(bubblewrap/);
    const s = { url: served.url, apiKey: SECRET };
    const api = (method: string, path: string, body?: unknown) => callApi(s, method, path, body);
    const monitor = await api('POST', '/v1/checks/url', { name: 'heartbeat of the test', frequency: 0, frequencyOffset: 10, request: { url: `${target.http.url}/health` } });
    expect(monitor.status).toBe(201);
    const ids: Record<string, string> = {};
    for (const [name, text] of Object.entries(escapes({ keysFile, dbFile, pid: served.pid, cwdFile: join(process.cwd(), 'package.json') }))) {
      // Daily at time scale 30 (every 48 min): each escape runs once at first and not again while
      // the test lasts (hourly, a loaded machine's slow runs ran each escape a second time).
      const c = await api('POST', '/v1/checks/multistep', { name, frequency: 1440, doubleCheck: false, script: text });
      expect(c.status).toBe(201);
      ids[name] = c.body.id;
    }
    let unanswered = 0;
    const poll = setInterval(() => {
      api('GET', '/v1/checks').then((r) => void (r.status !== 200 && unanswered++), () => void unanswered++);
    }, 500);
    const escapeRuns: Array<{ startedAt: string; stoppedAt: string }> = [];
    try {
      for (const [name, id] of Object.entries(ids)) {
        const [result] = await waitFor(async () => {
          const r = await api('GET', `/v1/check-results/${id}`);
          return r.body.length > 0 ? r.body : undefined;
        }, 840_000, 200);
        expect(result.hasFailures || result.hasErrors, `${name}: ${result.multiStepCheckResult?.errors}`).toBe(true);
        expectErrors(result.multiStepCheckResult.errors, expected[name], name);
        escapeRuns.push(result);
      }
    } finally {
      clearInterval(poll);
    }
    expect(unanswered).toBe(0);
    expect(served.exitCode()).toBeNull();
    // The monitor is due every 10 s of schedule (about every 0.33 s at time scale 30) and kept
    // running while the escapes ran: over the span from the first escape's start to the last
    // one's end, its runs leave no gap longer than a quarter of that span (or 5 s). A scheduler
    // held by script runs would leave a gap as long as the runs; a loaded machine slows the
    // scripts (seconds of CPU each) far more than the monitor's runs, so the bound scales with
    // the machine instead of being a fixed lateness in wall milliseconds.
    const from = Math.min(...escapeRuns.map((r) => Date.parse(r.startedAt)));
    const to = Math.max(...escapeRuns.map((r) => Date.parse(r.stoppedAt)));
    const results: Array<{ startedAt: string }> = [];
    for (let page = 1; ; page++) {
      const r = await api('GET', `/v1/check-results/${monitor.body.id}?from=${from}&to=${to + 1}&limit=100&page=${page}`);
      expect(r.status).toBe(200);
      results.push(...r.body);
      if (r.body.length < 100) break;
    }
    const during = results.map((r) => Date.parse(r.startedAt)).sort((a, b) => a - b);
    expect(during.length).toBeGreaterThan(3);
    const edges = [from, ...during, to];
    const gaps = edges.slice(1).map((t: number, i: number) => t - edges[i]);
    expect(Math.max(...gaps)).toBeLessThan(Math.max(5_000, (to - from) / 4));
    const all = JSON.stringify(await Promise.all(Object.values(ids).map((id) => api('GET', `/v1/check-results/${id}`).then((r) => r.body))));
    expect(all).not.toContain(SECRET);
  }, 900_000);
});
