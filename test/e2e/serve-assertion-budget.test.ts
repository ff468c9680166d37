import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMacIn } from '../helpers/mac-inprocess.js';
import { startServe, type Served, callApi, waitFor } from '../helpers/serve.js';
import { startHttpTarget, type HttpTarget } from '../helpers/http-target.js';

// A check's assertions come from its definition: 150 regexes that backtrack for their whole
// 100 ms limit each held the service's main thread for 15 s. They are evaluated off the main
// thread now, within one budget per run, and a check holds at most 200 of them. One service for
// the file (the cases run one after the other: the first measures the API's answers); mac validate
// runs in process.

let target: HttpTarget;
let served: Served;
let dir: string;

beforeAll(async () => {
  // `(a+)+$` against many a's followed by "!" backtracks exponentially.
  target = await startHttpTarget({ handler: (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${'a'.repeat(40)}!`) });
  dir = await mkdtemp(join(tmpdir(), 'mac-assertions-'));
  served = await startServe();
});
afterAll(async () => {
  await served?.stop();
  await target.close();
  await rm(dir, { recursive: true, force: true });
});

const api = (method: string, path: string, body?: unknown) => callApi(served, method, path, body);
const catastrophic = { source: 'TEXT_BODY', comparison: 'EQUALS', target: 'x', property: '', regex: '(a+)+$' };
const apiCheck = (assertions: unknown[]) => ({
  name: 'hostile regexes',
  frequency: 1440,
  doubleCheck: false,
  retryStrategy: null,
  request: { method: 'GET', url: `${target.origin}/`, assertions },
});

describe('assertions never hold the service', () => {
  it('runs API checks with 150 catastrophic regexes while the API answers every poll at once; each run fails over its budget', async () => {
    // A first run loads what HTTP runs need (the HTTP client, the assertion thread): that start-up
    // is not what is measured here.
    const warm = await api('POST', '/v1/checks/api', { ...apiCheck([{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'aaa' }]), name: 'warm-up' });
    expect(warm.status).toBe(201);
    const warmRun = await api('POST', '/v1/check-sessions/trigger', { target: { checkId: [warm.body.id] } });
    await waitFor(async () => {
      const r = await api('GET', `/v1/check-sessions/${warmRun.body.sessions[0].checkSessionId}`);
      return ['FAILED', 'PASSED', 'TIMED_OUT'].includes(r.body.status) ? r.body : undefined;
    }).then(async (session) => expect(session, JSON.stringify((await api('GET', `/v1/check-results/${warm.body.id}`)).body)).toMatchObject({ status: 'PASSED' }));

    // Three such checks run at once: on the main thread their evaluations would hold it for 3 s
    // in a row (1 s each, the run's budget; 15 s each before budgets).
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const check = await api('POST', '/v1/checks/api', { ...apiCheck(Array.from({ length: 150 }, () => catastrophic)), name: `hostile ${i}` });
      expect(check.status).toBe(201);
      ids.push(check.body.id);
    }
    const trigger = await api('POST', '/v1/check-sessions/trigger', { target: { checkId: ids } });
    expect(trigger.status).toBe(201);
    const sessionIds: string[] = trigger.body.sessions.map((s: any) => s.checkSessionId);
    expect(sessionIds).toHaveLength(3);

    // A client polls the API every 100 ms until the runs have ended, and 1 s more.
    const latencies: number[] = [];
    let endedAt: number | undefined;
    const sessions = new Map<string, any>();
    const began = performance.now();
    for (let n = 0; endedAt === undefined || performance.now() - endedAt < 1000; n++) {
      const t0 = performance.now();
      const sessionId = sessionIds[n % 4];
      const r = await api('GET', sessionId === undefined ? '/v1/checks' : `/v1/check-sessions/${sessionId}`);
      latencies.push(performance.now() - t0);
      expect(r.status).toBe(200);
      if (sessionId !== undefined && ['FAILED', 'PASSED', 'TIMED_OUT'].includes(r.body.status)) sessions.set(sessionId, r.body);
      if (sessions.size === 3 && endedAt === undefined) endedAt = performance.now();
      expect(performance.now() - began).toBeLessThan(90_000);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (performance.now() - t0))));
    }
    const runMs = endedAt! - began;
    const max = Math.max(...latencies);
    const sorted = [...latencies].sort((x, y) => x - y);
    console.log(
      `assertion budget e2e: ${latencies.length} polls over ${Math.round(runMs)} ms of runs; max ${max.toFixed(1)} ms, median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms; load average ${loadavg()[0]}`,
    );
    // The runs spent their budgets (3 x 1 s of regex work): the polls spanned them.
    expect(runMs).toBeGreaterThanOrEqual(2500);
    // Held by the evaluations, one poll would have waited about 3 s. Every answer came within
    // 100 ms on a quiet machine; the bound leaves room for a loaded one.
    expect(max).toBeLessThan(1000);

    for (const [id, session] of sessions) {
      expect(session, id).toMatchObject({ status: 'FAILED', results: [{ resultType: 'FINAL', hasFailures: true }] });
    }
    for (const id of ids) {
      const results = await api('GET', `/v1/check-results/${id}`);
      const final = results.body[0];
      // 150 and the implied STATUS_CODE LESS_THAN 400.
      expect(final.apiCheckResult.assertions).toHaveLength(151);
      expect(final.apiCheckResult.assertions.slice(0, 150).every((a: any) => a.passed === false && a.actual === null)).toBe(true);
      expect(final.apiCheckResult.requestError).toMatch(/^assertions ran over this run's evaluation budget/);
      const groups = await waitFor(async () => {
        const g = await api('GET', `/v1/error-groups/checks/${id}`);
        return g.status === 200 && g.body.length > 0 ? g.body : undefined;
      });
      expect(groups[0].rawErrorMessage).toMatch(/^assertions ran over this run's evaluation budget of 1000 ms and were stopped \(\d+ of 151 evaluated\)/);
    }
  }, 180_000);

  it('refuses a check of more than 200 assertions on create and on update, with a 400 that says so', async () => {
    const tooMany = Array.from({ length: 201 }, () => ({ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }));
    const created = await api('POST', '/v1/checks/api', apiCheck(tooMany));
    expect(created.status).toBe(400);
    expect(JSON.stringify(created.body)).toMatch(/request\.assertions.*(200|at most)/);
    const ok = await api('POST', '/v1/checks/api', apiCheck(tooMany.slice(0, 200)));
    expect(ok.status).toBe(201);
    const updated = await api('PUT', `/v1/checks/api/${ok.body.id}`, apiCheck(tooMany));
    expect(updated.status).toBe(400);
    expect(JSON.stringify(updated.body)).toMatch(/request\.assertions.*(200|at most)/);
    const url = await api('POST', '/v1/checks/url', { name: 'u', frequency: 10, request: { url: `${target.origin}/`, assertions: tooMany } });
    expect(url.status).toBe(400);
  });

  it('mac validate refuses a definition of more than 200 assertions at its file and line', async () => {
    const project = join(dir, 'project');
    const lines = [
      'kind: ApiCheck',
      'id: too-many',
      'name: too many assertions',
      'request:',
      '  method: GET',
      '  url: https://example.com/',
      '  assertions:',
      ...Array.from({ length: 201 }, () => '    - { source: STATUS_CODE, comparison: EQUALS, target: "200" }'),
    ];
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'mac.config.yaml'), 'project: limits\n');
    await writeFile(join(project, 'checks.yaml'), `${lines.join('\n')}\n`);
    const r = await runMacIn(['validate'], { cwd: project });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/checks\.yaml:7\b.*assertions/);
    expect(r.stdout + r.stderr).toMatch(/200/);
  });
});
