import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck, type RunnableCheckInput } from '../../../src/runner/index.js';
import { closedPort, startTcpServer, type TcpServer } from '../../helpers/tcp-server.js';

let server: TcpServer;
beforeAll(async () => {
  server = await startTcpServer();
});
afterAll(() => server.close());

const tcp = (extra: Partial<Extract<RunnableCheckInput, { checkType: 'TCP' }>> = {}, request: Record<string, unknown> = {}): RunnableCheckInput => ({
  checkType: 'TCP',
  name: 'echo',
  doubleCheck: false,
  ...extra,
  request: { hostname: '127.0.0.1', port: server.port, ...request },
});

// Short idle so that kept-open connections end quickly; the decided defaults are tested in DEFAULT_LIMITS.
const fast = { limits: { idleMs: 100 } };

describe('TCP runs', () => {
  it('passes when the reply satisfies every assertion, and records the exchange', async () => {
    server.set({ reply: (req) => (req.includes('PING') ? '+PONG\r\n' : null) });
    const [r] = await runCheck(
      tcp({}, { data: 'PING\r\n', assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' }] }),
      fast,
    );
    expect(r).toMatchObject({ resultType: 'FINAL', attempts: 0, hasFailures: false, hasErrors: false, isDegraded: false, overMaxResponseTime: false, errorMessage: null });
    expect(r.apiCheckResult).toMatchObject({
      request: { method: 'TCP', url: `tcp://127.0.0.1:${server.port}`, data: 'PING\r\n', headers: {}, params: {} },
      response: { status: 0, statusText: 'OK', body: '+PONG\r\n', headers: {}, timings: null },
      assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG', actual: '+PONG\r\n', passed: true }],
      requestError: null,
    });
    const phases = r.apiCheckResult!.response.timingPhases;
    expect(r.responseTime).toBe(phases.dns + phases.tcp);
    expect(phases.total).toBeGreaterThanOrEqual(phases.tcp);
    expect(server.received.at(-1)).toBe('PING\r\n');
  });

  it('reads a banner without sending anything, ending on idle when the peer keeps the line open', async () => {
    server.set({ banner: 'SSH-2.0-demo\r\n', after: 'keep-open' });
    const [r] = await runCheck(tcp({}, { assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'SSH-2.0-demo', regex: '^(\\S+)' }] }), fast);
    expect(r.hasFailures).toBe(false);
    expect(r.apiCheckResult!.response.body).toBe('SSH-2.0-demo\r\n');
  });

  it('keeps at most maxBytes of the reply', async () => {
    server.set({ banner: 'a'.repeat(5000) });
    const [r] = await runCheck(tcp(), { limits: { idleMs: 100, maxBytes: 1024 } });
    expect(r.apiCheckResult!.response.body).toHaveLength(1024);
  });

  it('fails on a failed assertion with the decided message', async () => {
    server.set({ banner: 'ERR busy\r\n' });
    const [r] = await runCheck(tcp({}, { assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'OK' }] }), fast);
    expect(r.hasFailures).toBe(true);
    expect(r.isDegraded).toBe(false);
    expect(r.errorMessage).toBe('RESPONSE_DATA CONTAINS "OK" failed, actual "ERR busy\r\n"');
    expect(r.apiCheckResult!.assertions[0]).toMatchObject({ passed: false, actual: 'ERR busy\r\n' });
  });

  it('fails on a refused connection with the socket error', async () => {
    const port = await closedPort();
    const [r] = await runCheck(tcp({}, { port, assertions: [{ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '1000' }] }), fast);
    expect(r).toMatchObject({ hasFailures: true, hasErrors: false, networkError: true, errorMessage: `connect ECONNREFUSED 127.0.0.1:${port}` });
    expect(r.apiCheckResult).toMatchObject({ requestError: `connect ECONNREFUSED 127.0.0.1:${port}`, response: { statusText: 'ECONNREFUSED' } });
    expect(r.apiCheckResult!.assertions[0].passed).toBe(false);
  });

  it('times out an attempt that does not finish in time', async () => {
    server.set({ after: 'keep-open' });
    const [r] = await runCheck(tcp(), { limits: { idleMs: 10_000, timeoutMs: 200 } });
    expect(r).toMatchObject({ hasFailures: true, errorMessage: 'timeout' });
    expect(r.apiCheckResult!.response.statusText).toBe('ETIMEDOUT');
  });

  it('is degraded at degradedResponseTime and failing at maxResponseTime', async () => {
    server.set({ banner: 'hi' });
    const [degraded] = await runCheck(tcp({ degradedResponseTime: 0 }), fast);
    expect(degraded).toMatchObject({ hasFailures: false, isDegraded: true, overMaxResponseTime: false });
    const [over] = await runCheck(tcp({ degradedResponseTime: 0, maxResponseTime: 0 }), fast);
    expect(over).toMatchObject({ hasFailures: true, isDegraded: false, overMaxResponseTime: true });
    expect(over.errorMessage).toBe(`Response time ${over.responseTime}ms exceeded 0ms`);
    const [never] = await runCheck(tcp({ degradedResponseTime: null, maxResponseTime: null }), fast);
    expect(never).toMatchObject({ hasFailures: false, isDegraded: false, overMaxResponseTime: false });
  });

  it('inverts the outcome with shouldFail', async () => {
    const port = await closedPort();
    const [refused] = await runCheck(tcp({ shouldFail: true }, { port }), fast);
    expect(refused).toMatchObject({ hasFailures: false, errorMessage: null });
    server.set({ banner: 'OK' });
    const [answered] = await runCheck(tcp({ shouldFail: true }), fast);
    expect(answered).toMatchObject({ hasFailures: true, errorMessage: 'Check was expected to fail but passed' });
  });

  it('retries once at once with doubleCheck and no strategy; the last attempt is FINAL', async () => {
    const port = await closedPort();
    const seen: string[] = [];
    const results = await runCheck(tcp({ doubleCheck: true }, { port }), { ...fast, onAttempt: (a) => void seen.push(a.resultType) });
    expect(results.map((r) => [r.resultType, r.attempts])).toEqual([
      ['ATTEMPT', 0],
      ['FINAL', 1],
    ]);
    expect(seen).toEqual(['ATTEMPT', 'FINAL']);
  });

  it('retries per strategy, waiting the backoff capped by maxWaitMs, and stops once an attempt passes', async () => {
    const waits: number[] = [];
    let calls = 0;
    server.set({ reply: () => (++calls >= 3 ? 'OK' : 'NO') });
    const results = await runCheck(
      tcp(
        { retryStrategy: { type: 'LINEAR', baseBackoffSeconds: 1, maxRetries: 5, maxDurationSeconds: 600 } },
        { data: 'x', assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'OK' }] },
      ),
      { ...fast, maxWaitMs: 1500, sleep: async (ms) => void waits.push(ms) },
    );
    expect(results.map((r) => [r.resultType, r.hasFailures])).toEqual([
      ['ATTEMPT', true],
      ['ATTEMPT', true],
      ['FINAL', false],
    ]);
    expect(waits).toEqual([1000, 1500]);
  });

  it('does not retry an assertion failure when the strategy retries network errors only', async () => {
    server.set({ banner: 'NO' });
    const results = await runCheck(
      tcp({ retryStrategy: { type: 'FIXED', baseBackoffSeconds: 0, onlyOn: ['NETWORK_ERROR'] } }, { assertions: [{ source: 'RESPONSE_DATA', comparison: 'EQUALS', target: 'OK' }] }),
      fast,
    );
    expect(results).toHaveLength(1);
  });

  it('connects over IPv6 when ipFamily says so', async () => {
    const [r] = await runCheck(tcp({}, { hostname: 'localhost', ipFamily: 'IPv6' }), fast);
    // The listener is IPv4-only, so an IPv6 connection must be refused (or find no address).
    expect(r.hasFailures).toBe(true);
    expect(r.networkError).toBe(true);
  });
});

describe('multi-step checks without a script', () => {
  it('fails a multi-step check that has no script, never a pass', async () => {
    const [r] = await runCheck({ checkType: 'MULTI_STEP', name: 'journey', doubleCheck: false, script: null });
    expect(r).toMatchObject({
      resultType: 'FINAL',
      hasFailures: true,
      hasErrors: false,
      apiCheckResult: null,
      errorMessage: 'the check has no script to run',
      multiStepCheckResult: { errors: ['the check has no script to run'], jobAssets: null },
    });
  });
});

describe('TCP idle end and a stalled event loop', () => {
  it('reads what arrived while this process was stalled past the idle time, instead of ending the line as quiet', async () => {
    // The peer is another process: it answers 100 ms after the connection, while this process is
    // busy for 800 ms (from 30 ms after the start), so the 200 ms idle timer expires in the stall
    // with the banner waiting in the socket. The next turn runs the timer before it reads the socket.
    const { spawn } = await import('node:child_process');
    const { probeTcp } = await import('../../../src/runner/tcp.js');
    const { DEFAULT_LIMITS } = await import('../../../src/runner/probe.js');
    const peer = spawn(process.execPath, ['-e', "require('net').createServer((s) => setTimeout(() => s.write('+OK\\r\\n'), 100)).listen(0, '127.0.0.1', function () { console.log(this.address().port) })"], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        peer.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
        peer.once('exit', (code) => reject(new Error(`the peer exited with ${code}`)));
      });
      const probe = probeTcp({ hostname: '127.0.0.1', port, data: null, ipFamily: 'IPv4', assertions: [] } as never, { ...DEFAULT_LIMITS, idleMs: 200 });
      // Busy in the check phase (setImmediate): the next turn starts with the expired timers.
      setTimeout(() => {
        setImmediate(() => {
          const until = Date.now() + 800;
          while (Date.now() < until);
        });
      }, 30);
      expect((await probe).body).toBe('+OK\r\n');
    } finally {
      peer.kill();
    }
  });
});
