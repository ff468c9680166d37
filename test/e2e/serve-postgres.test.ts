import { createServer as createTcpServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOk, callApi, expectAckedWritesSurviveKill, refusedServe, startServes, type Served } from '../helpers/serve.js';
import { pgDatabase, pgQuery, pgServiceDatabase } from '../helpers/pg-url.js';
import { PG_MIGRATIONS } from '../../src/server/store/postgres.js';


const sql = pgQuery;

// Each case works on a database of its own, and the cases of each describe run at once (the
// describes one after the other): generous time limits, since up to four services start at once.
describe('mac serve on PostgreSQL (built CLI)', { timeout: 150_000 }, () => {
  it.concurrent('keeps every acknowledged write across kill -9 while writes are in flight', async () => {
    await expectAckedWritesSurviveKill(pgDatabase());
  });

  it.concurrent('two instances on one database are one service: writes read at once through the other, ids unique, accounts apart', async () => {
    const db = pgDatabase();
    const args = ['--database', db, '--no-runs', '--rate-limit', '0/60', '--api-key', 'k-dev', '--account', 'dev'];
    // The first instance serves a second account too: its key sees that account's records only.
    const [a, b] = await startServes([...args, '--api-key', 'k-other', '--account', 'other'], args);
    const other: Served = { ...a, apiKey: 'k-other', accountId: 'other' };
    try {
      const check = await apiOk(a, 'POST', '/v1/checks/tcp', { name: 'db', request: { hostname: 'db.internal', port: 5432 } });
      expect((await apiOk(b, 'GET', `/v1/checks/${check.id}`)).name).toBe('db');
      await apiOk(b, 'PUT', `/v1/checks/tcp/${check.id}`, { name: 'db2', request: { hostname: 'db.internal', port: 5432 } });
      expect((await apiOk(a, 'GET', '/v1/checks')).map((c: any) => c.name)).toEqual(['db2']);
      // Cached check views follow a channel subscription written through the other instance.
      const channel = await apiOk(a, 'POST', '/v1/alert-channels', { type: 'EMAIL', config: { address: 'ops@example.com' } });
      await apiOk(b, 'PUT', `/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: true });
      expect((await apiOk(a, 'GET', `/v1/checks/${check.id}`)).alertChannelSubscriptions).toEqual([{ alertChannelId: channel.id, activated: true }]);
      expect((await callApi(b, 'DELETE', `/v1/checks/${check.id}`)).status).toBe(204);
      expect((await callApi(a, 'GET', `/v1/checks/${check.id}`)).status).toBe(404);
      // Integer ids come from one counter: creates through both at once never collide.
      const created = await Promise.all(Array.from({ length: 40 }, (_, i) => apiOk(i % 2 ? a : b, 'POST', '/v1/snippets', { name: `s${i}`, script: 'x' })));
      const ids = created.map((s) => s.id);
      expect(new Set(ids).size).toBe(40);
      expect((await apiOk(a, 'GET', '/v1/snippets?limit=100')).length).toBe(40);
      // Another account on the same database sees none of it.
      expect(await apiOk(other, 'GET', '/v1/snippets')).toEqual([]);
      expect((await callApi(other, 'GET', `/v1/snippets/${ids[0]}`)).status).toBe(404);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it.concurrent('refuses a schema newer than it knows and a database it did not create; names no password', async () => {
    const db = pgDatabase();
    pgServiceDatabase(db);
    await sql(db, 'UPDATE mac_schema SET version = $1', [PG_MIGRATIONS.length + 3]);
    const foreign = pgDatabase();
    pgServiceDatabase(foreign);
    await sql(foreign, 'DROP TABLE mac_schema');
    // The two refusals at once: each its database.
    const [newer, refused] = await Promise.all([refusedServe(['--database', db]), refusedServe(['--database', foreign])]);
    expect(newer.code).toBe(1);
    expect(newer.stderr).toContain(`database schema version ${PG_MIGRATIONS.length + 3} is newer than this mac serve knows (${PG_MIGRATIONS.length})`);
    const password = new URL(db).password;
    expect(newer.stderr).not.toContain(password);

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a PostgreSQL database that mac serve did not create');
  });
});

describe('two instances running the checks on one PostgreSQL (--time-scale 30)', { timeout: 150_000 }, () => {
  let target: Server;
  let port = 0;
  beforeAll(async () => {
    target = createTcpServer((s) => s.end());
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    port = (target.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => target.close(() => r())));

  /**
   * Runs CHECKS one-minute TCP checks (2 s at --time-scale 30) on two instances for a simulated
   * 5 minutes or more; with `kill`, instance A is killed (kill -9) halfway. Then, per check:
   * the due times claimed form one unbroken series one period apart (none missing), each claimed
   * once (the key of run_claims), and there is exactly one session per claimed due time, the
   * killed instance's too: a claim commits with the session it starts, or not at all (then the
   * survivor claims that due time).
   *
   * On a loaded machine a due time may be passed over, as the scheduler means to: shed by a
   * scheduler stalled for more than a period (it claims the latest point of the grid it reached
   * and counts the points passed over in mac_runs_shed_total), or, once the survivor schedules
   * alone, while the check's previous session still runs on it (then that session covers the due
   * time; while both run, the instance not running it claims it). Any other gap is a lost claim:
   * the due times missing from each series and not so covered may add up to no more than the
   * instances counted, so that a stall is not taken for a lost claim, nor hides one.
   */
  const PERIOD_MS = 2000;
  async function runTwo(kill: boolean): Promise<void> {
    const CHECKS = 6;
    const db = pgDatabase();
    // 2 s per period: a scheduler that falls behind by more than a period skips a due time (it
    // does not catch up), and a loaded machine stalled a 1 s period (--time-scale 60) that long.
    const args = ['--database', db, '--time-scale', '30', '--rate-limit', '0/60', '--metrics-port', '0'];
    const [a, b] = await startServes(args, args);
    const stopped: Served[] = [];
    let shed = 0;
    let killedAt: number | undefined;
    try {
      for (let i = 0; i < CHECKS; i++) {
        await apiOk(a, 'POST', '/v1/checks/tcp', { name: `t${i}`, frequency: 1, frequencyOffset: 1 + i, request: { hostname: '127.0.0.1', port } });
      }
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, 6000));
      if (kill) {
        shed += await runsShed(a);
        await a.stop('SIGKILL');
        killedAt = Date.now();
        stopped.push(a);
      }
      // 5 simulated minutes from the first due time, and one more for the last sessions to end.
      while (Date.now() - t0 < 14_000) await new Promise((r) => setTimeout(r, 100));
      for (const s of kill ? [b] : [a, b]) shed += await runsShed(s);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    const sessions = (await sql<{ check_id: string; data: string }>(db, "SELECT check_id, data FROM records WHERE kind = 'checkSessions'")).map((r) => {
      const { startedAt, stoppedAt } = JSON.parse(r.data) as { startedAt: string; stoppedAt: string | null };
      // A session of the killed instance never stops: it ran until the kill.
      return { checkId: r.check_id, from: Date.parse(startedAt), to: stoppedAt ? Date.parse(stoppedAt) : (killedAt ?? Number.POSITIVE_INFINITY) };
    });
    const claims = await sql<{ check_id: string; due_ms: number; instance: string }>(db, 'SELECT check_id, due_ms::float8 AS due_ms, instance FROM run_claims ORDER BY check_id, due_ms');
    const checks = await sql<{ id: string }>(db, "SELECT id FROM records WHERE kind = 'checks'");
    expect(checks).toHaveLength(CHECKS);
    const instances = new Set<string>();
    let passedOver = 0;
    const aPid = kill ? String(stopped[0].pid) : '';
    const lastOfA = Math.max(...claims.filter((c) => kill && c.instance.startsWith(`${aPid}-`)).map((c) => c.due_ms));
    for (const { id } of checks) {
      const due = claims.filter((c) => c.check_id === id);
      for (const c of due) instances.add(c.instance);
      // At least the 5 due times of a 5-minute window.
      expect(due.length, `claims of ${id}`).toBeGreaterThanOrEqual(5);
      const gaps = due.slice(1).map((c, i) => c.due_ms - due[i].due_ms);
      // One period apart, or whole periods apart where due times were passed over (counted below).
      expect(gaps.filter((g) => g <= 0 || g % PERIOD_MS !== 0), `due times of ${id}: ${due.map((c) => c.due_ms).join(', ')}`).toEqual([]);
      for (const [i, g] of gaps.entries()) {
        for (let t = due[i].due_ms + PERIOD_MS; t < due[i].due_ms + g; t += PERIOD_MS) {
          const alone = killedAt !== undefined && t > killedAt;
          if (!(alone && sessions.some((s) => s.checkId === id && s.from <= t && s.to >= t))) passedOver++;
        }
      }
      const n = sessions.filter((s) => s.checkId === id).length;
      expect(n, `sessions of ${id} (claims: ${due.map((c) => `${c.due_ms}@${c.instance}`).join(', ')})`).toBe(due.length);
    }
    // None missing but the runs the instances shed (none on a machine that keeps up).
    expect(passedOver, `due times passed over; runs shed: ${shed}`).toBeLessThanOrEqual(shed);
    // Both instances ran some of the runs.
    expect(instances.size).toBe(2);
    if (kill) {
      // After the kill every due time went to the survivor.
      expect(claims.filter((c) => c.due_ms > lastOfA).every((c) => !c.instance.startsWith(`${aPid}-`))).toBe(true);
      expect(claims.filter((c) => c.due_ms > lastOfA + PERIOD_MS).length).toBeGreaterThanOrEqual(CHECKS * 2);
    }
  }

  /** mac_runs_shed_total of a running instance (its metrics listener, printed at start). */
  async function runsShed(s: Served): Promise<number> {
    const url = /metrics: (http:\/\/\S+)/.exec(s.log())?.[1];
    if (!url) throw new Error(`no metrics URL in the log of mac serve:\n${s.log()}`);
    const text = await (await fetch(url.endsWith('/metrics') ? url : `${url}/metrics`)).text();
    const line = /^mac_runs_shed_total(?:\{[^}]*\})? (\S+)$/m.exec(text);
    if (!line) throw new Error(`no mac_runs_shed_total in the metrics:\n${text.slice(0, 2000)}`);
    return Number(line[1]);
  }

  it.concurrent('every due time of each check runs exactly once, none missing, none doubled', async () => {
    await runTwo(false);
  });

  it.concurrent('the same when one instance is killed (kill -9) halfway: the other takes every later due time', async () => {
    await runTwo(true);
  });
});
