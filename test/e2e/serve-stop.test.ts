import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOk, callApi, startServe, waitFor, type Served } from '../helpers/serve.js';
import { startTcpServer, type TcpServer } from '../helpers/tcp-server.js';
import { startSilentNameServer, type SilentNameServer } from '../helpers/dns-server.js';
import { testStateFile } from '../helpers/store-mode.js';

// A name server that takes every query and answers none: each run against it lasts the runner's
// whole timeout (30 s), far past the 5 s a stopping service waits (STOP_GRACE_MS).
let silent: SilentNameServer;
let tcp: TcpServer;
beforeAll(async () => {
  silent = await startSilentNameServer();
  tcp = await startTcpServer({ banner: '+OK\r\n' });
});
afterAll(async () => {
  silent.close();
  await tcp.close();
});

/** A database of the test's store (SQLite when the store is memory): the stop must keep what was recorded. */
function database(): string[] {
  const url = testStateFile() ?? join(mkdtempSync(join(tmpdir(), 'mac-serve-stop-')), 'state.db');
  return ['--database', url.startsWith('postgres') ? url : `sqlite:${url}`];
}

/** A service with one healthy TCP check and 6 DNS checks on the silent name server, each due every second. */
async function busyService(db: string[]): Promise<{ s: Served; healthy: string }> {
  const s = await startServe(['--time-scale', '60', '--rate-limit', '0/60', ...db]);
  const { port } = silent;
  for (let i = 0; i < 6; i++) {
    await apiOk(s, 'POST', '/v1/checks/dns', { name: `silent ${i}`, frequency: 1, doubleCheck: false, heartbeat: {}, script: '', request: { query: 'a.test', recordType: 'A', nameServer: '127.0.0.1', port, protocol: 'UDP' } });
  }
  const healthy = (await apiOk(s, 'POST', '/v1/checks/tcp', { name: 'healthy', frequency: 1, doubleCheck: false, request: { hostname: '127.0.0.1', port: tcp.port } })).id as string;
  // Two healthy runs recorded: the silent checks' first runs (due at once) are under way.
  await waitFor(async () => ((await callApi(s, 'GET', `/v1/check-results/${healthy}?limit=100`)).body.length >= 2 ? true : undefined), 20_000, 50);
  return { s, healthy };
}

const exited = (s: Served, signal: NodeJS.Signals) => s.stop(signal);

describe('mac serve stops within its grace while runs wait on targets that do not answer (built CLI)', () => {
  it('waits up to 5 s for the runs under way, abandons the rest, and keeps every result recorded before the stop', async () => {
    const db = database();
    const { s, healthy } = await busyService(db);
    const recorded = (await callApi(s, 'GET', `/v1/check-results/${healthy}?limit=100`)).body.length as number;
    const t0 = performance.now();
    await exited(s, 'SIGTERM');
    const stopMs = performance.now() - t0;
    // Waiting for every run took the runner's whole timeout: 25-30 s after the first runs began.
    expect(stopMs).toBeLessThan(20_000);
    expect(s.exitCode()).toBe(0);
    expect(s.log()).toMatch(/mac serve: stopping: waiting up to 5 s for \d+ runs? under way/);
    expect(s.log()).toMatch(/mac serve: stopped with [1-9]\d* runs? unfinished/);
    expect(s.log()).not.toMatch(/run failed|Error:/);
    const again = await startServe(['--no-runs', ...db]);
    try {
      expect((await callApi(again, 'GET', `/v1/check-results/${healthy}?limit=100`)).body.length).toBeGreaterThanOrEqual(recorded);
    } finally {
      await again.stop();
    }
  });

  it('stops at once on a second signal', async () => {
    const { s } = await busyService(database());
    const t0 = performance.now();
    process.kill(s.pid, 'SIGTERM');
    await waitFor(async () => (s.log().includes('mac serve: stopping') ? true : undefined), 10_000, 10);
    await exited(s, 'SIGTERM');
    // Without the second signal the stop waits the whole 5 s grace for the silent runs.
    expect(performance.now() - t0).toBeLessThan(4_500);
    expect(s.exitCode()).toBe(0);
    expect(s.log()).toMatch(/mac serve: stopped with [1-9]\d* runs? unfinished/);
  });
});
