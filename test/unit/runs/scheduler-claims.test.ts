import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runsHarness, type RunsHarness } from './harness.js';
import { startTcpServer, type TcpServer } from '../../helpers/tcp-server.js';
import { pgDatabase } from '../../helpers/pg-url.js';
import type { RunClaim } from '../../../src/server/store/backend.js';

// The scheduler's claims on a shared database (PostgreSQL) are answered while the event loop goes
// on (Store.claimRunsAsync). Each test makes the claims wait, from another connection, for longer
// than several periods of the check, and looks at what the scheduler did meanwhile and after.

let tcp: TcpServer;
let h: RunsHarness | undefined;
let other: pg.Client | undefined;

beforeAll(async () => {
  tcp = await startTcpServer({ banner: '+OK\r\n' });
});
afterAll(async () => {
  await tcp.close();
});
afterEach(async () => {
  await other?.end().catch(() => undefined);
  other = undefined;
  await h?.close();
  h = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `ok` every 20 ms for up to `ms` (generous: the machine may be loaded). */
async function until(ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (await ok()) return true;
  return ok();
}

/** mac_runs_shed_total from the service's own registry. */
async function shed(harness: RunsHarness): Promise<number> {
  const text = await harness.server.ctx.metrics!.text();
  return Number(/^mac_runs_shed_total (\S+)$/m.exec(text)?.[1] ?? NaN);
}

/** Another connection that keeps the claims table from taking rows until it ends its transaction. */
async function lockClaims(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  c.on('error', () => undefined);
  await c.query('BEGIN');
  // Ends by itself should the test fail before it lets go.
  await c.query("SET LOCAL idle_in_transaction_session_timeout = '20s'");
  await c.query('LOCK TABLE run_claims IN SHARE MODE');
  return c;
}

describe('scheduler claims answered late (PostgreSQL)', () => {
  it('a check whose claim is under way is not claimed again; the due times reached meanwhile count as shed', async () => {
    const url = pgDatabase();
    // frequency 1 at time scale 600: a period of 100 ms.
    h = runsHarness({ stateFile: url, timeScale: 600, metricsPort: 0 });
    const store = h.server.ctx.store;
    const claimed: RunClaim[] = [];
    const claimRunsAsync = store.claimRunsAsync.bind(store);
    store.claimRunsAsync = (runs, start) => {
      claimed.push(...runs.map((r) => ({ account: r.account, checkId: r.checkId, dueMs: r.dueMs })));
      return claimRunsAsync(runs, start);
    };
    const check = h.seedCheck({ frequency: 1, request: { hostname: '127.0.0.1', port: tcp.port, data: null, ipFamily: 'IPv4', assertions: [] } });
    // Scans of the scheduler while the claim waits.
    let scans = 0;
    const tick = h.runs.scheduler.tick.bind(h.runs.scheduler);
    h.runs.scheduler.tick = () => {
      scans++;
      tick();
    };
    other = await lockClaims(url);
    h.runs.scheduler.start();
    // The first claim is sent, and waits for the lock.
    expect(await until(() => claimed.length >= 1)).toBe(true);
    const firstDue = claimed[0].dueMs;
    // Several periods pass (the clock is the service's: real ms at time scale 600) and the
    // scheduler keeps scanning meanwhile.
    const scansBefore = scans;
    expect(await until(() => Date.now() > firstDue + 5 * 100 && scans > scansBefore + 5)).toBe(true);
    // One claim of the check under way at a time: a second would start a second run of the
    // check beside the first once both are granted.
    expect(claimed.map((c) => c.checkId)).toEqual([check.id]);
    await other.query('COMMIT');
    await other.end();
    other = undefined;
    // The claim is granted and its run starts; the 5 due times or more reached while it waited
    // were passed over (the run started after them), and count as shed.
    expect(await until(async () => (await h!.call('GET', `/v1/check-results/${check.id}?limit=100`)).body.length >= 1)).toBe(true);
    expect(await shed(h)).toBeGreaterThanOrEqual(5);
    // The scheduler goes on from the point of the grid after the run's start.
    expect(await until(() => claimed.length >= 2)).toBe(true);
    await h.runs.scheduler.stop();
    // Each due time claimed once, one period or more apart, the first the one under way.
    const dues = claimed.map((c) => c.dueMs);
    expect(dues[0]).toBe(firstDue);
    expect(dues[1] - dues[0]).toBeGreaterThanOrEqual(5 * 100);
    expect(new Set(dues).size).toBe(dues.length);
    expect(h.errors).toEqual([]);
  });
});
