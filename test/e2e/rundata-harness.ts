/**
 * In-process harness for the run-data and status-page routes: a service with two accounts and a
 * settable clock, requests through its fetch handler, and seeding through the store API.
 */
import { createServer, type MacServer } from '../../src/server/server.js';
import { COLL } from '../../src/server/kinds.js';
import { RunRecorder, type AttemptInput } from '../../src/server/rundata/recorder.js';
import { testStateFile } from '../helpers/store-mode.js';

/** A service under test. */
export interface Harness {
  server: MacServer;
  recorder: RunRecorder;
  clock: { now: number };
  /** A request as account `dev` (key `mac-dev-key`) unless `key` says otherwise. */
  call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: any; headers: Headers }>;
  /** Stores a check record directly (the check routes live elsewhere). */
  seedCheck(account: string, over?: Record<string, unknown>): Record<string, any>;
}

/** Starts a harness; `stateFile` keeps it in that database (MAC_TEST_STORE=sqlite: a fresh one). */
export function harness(stateFile?: string, start = Date.parse('2025-03-12T12:00:00.000Z')): Harness {
  const clock = { now: start };
  const server = createServer({
    stateFile: stateFile ?? testStateFile(),
    now: () => clock.now,
    rateLimit: { limit: 0, windowSeconds: 60 },
    keys: [
      { key: 'mac-dev-key', accountId: 'dev', role: 'admin' },
      { key: 'other-key', accountId: 'other', role: 'admin' },
      { key: 'ro-key', accountId: 'dev', role: 'read-only' },
    ],
  });
  const recorder = new RunRecorder(server.ctx.store, () => clock.now);
  let n = 0;
  return {
    server,
    recorder,
    clock,
    async call(method, path, body, key = 'mac-dev-key') {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await server.request(`http://127.0.0.1:4010${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
    },
    seedCheck(account, over = {}) {
      n += 1;
      const tx = server.ctx.store.begin(account);
      const check = {
        id: tx.uuid(),
        name: `check ${n}`,
        checkType: 'TCP',
        activated: true,
        muted: false,
        frequency: 10,
        tags: ['team-a'],
        shouldFail: false,
        maxResponseTime: 5000,
        ...over,
      };
      tx.put(COLL.checks, check.id, check);
      tx.commit();
      return check;
    },
  };
}

/** A TCP attempt at `location`; `over` changes any field. */
export function tcpAttempt(location: string, startedAt: number, over: Partial<AttemptInput> = {}): AttemptInput {
  const responseTime = over.responseTime ?? 20;
  return {
    location,
    startedAt: new Date(startedAt).toISOString(),
    stoppedAt: new Date(startedAt + responseTime).toISOString(),
    responseTime,
    hasFailures: false,
    hasErrors: false,
    isDegraded: false,
    overMaxResponseTime: false,
    apiCheckResult: {
      assertions: [],
      request: { method: 'TCP', url: 'tcp://db.internal:5432', data: null, headers: {}, params: {} },
      response: { status: 0, statusText: 'OK', body: '', headers: {}, timings: null, timingPhases: { wait: 0, dns: 2, tcp: responseTime - 2, firstByte: 0, download: 0, total: responseTime } },
      requestError: null,
      jobLog: null,
      jobAssets: null,
      pcapDataUrl: null,
    },
    multiStepCheckResult: null,
    ...over,
  };
}

/** A failing TCP attempt with a connection error. */
export function refusedAttempt(location: string, startedAt: number, address = '10.0.0.7:5432'): AttemptInput {
  const a = tcpAttempt(location, startedAt, { hasFailures: true });
  a.apiCheckResult = { ...a.apiCheckResult!, requestError: `connect ECONNREFUSED ${address}`, response: { ...a.apiCheckResult!.response, statusText: 'ECONNREFUSED' } };
  return a;
}

/** The snapshot a session takes of a seeded check. */
export function snapshot(check: Record<string, any>) {
  return { id: check.id, name: check.name, checkType: check.checkType, shouldFail: check.shouldFail, maxResponseTime: check.maxResponseTime };
}
