import { createServer as createTcpServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOk, callApi, expectAckedWritesSurviveKill, refusedServe, startServe, type Served } from '../helpers/serve.js';
import { pgDatabase, pgQuery } from '../helpers/pg-url.js';
import { PG_MIGRATIONS } from '../../src/server/store/postgres.js';


const sql = pgQuery;

describe('mac serve on PostgreSQL (built CLI)', () => {
  it('keeps every acknowledged write across kill -9 while writes are in flight', async () => {
    await expectAckedWritesSurviveKill(pgDatabase());
  });

  it('two instances on one database are one service: writes read at once through the other, ids unique, accounts apart', async () => {
    const db = pgDatabase();
    const args = ['--database', db, '--no-runs', '--rate-limit', '0/60', '--api-key', 'k-dev', '--account', 'dev'];
    const a = await startServe(args);
    const b = await startServe(args);
    const other = await startServe(['--database', db, '--no-runs', '--rate-limit', '0/60', '--api-key', 'k-other', '--account', 'other']);
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
      await Promise.all([a.stop(), b.stop(), other.stop()]);
    }
  });

  it('refuses a schema newer than it knows and a database it did not create; names no password', async () => {
    const db = pgDatabase();
    const a = await startServe(['--database', db, '--no-runs']);
    await a.stop();
    await sql(db, 'UPDATE mac_schema SET version = $1', [PG_MIGRATIONS.length + 3]);
    const newer = await refusedServe(['--database', db]);
    expect(newer.code).toBe(1);
    expect(newer.stderr).toContain(`database schema version ${PG_MIGRATIONS.length + 3} is newer than this mac serve knows (${PG_MIGRATIONS.length})`);
    const password = new URL(db).password;
    expect(newer.stderr).not.toContain(password);

    const foreign = pgDatabase();
    await startServe(['--database', foreign, '--no-runs']).then((s) => s.stop());
    await sql(foreign, 'DROP TABLE mac_schema');
    const refused = await refusedServe(['--database', foreign]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a PostgreSQL database that mac serve did not create');
  });
});

describe('two instances running the checks on one PostgreSQL (--time-scale 30)', () => {
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
   */
  const PERIOD_MS = 2000;
  async function runTwo(kill: boolean): Promise<void> {
    const CHECKS = 6;
    const db = pgDatabase();
    // 2 s per period: a scheduler that falls behind by more than a period skips a due time (it
    // does not catch up), and a loaded machine stalled a 1 s period (--time-scale 60) that long.
    const args = ['--database', db, '--time-scale', '30', '--rate-limit', '0/60'];
    const a = await startServe(args);
    const b = await startServe(args);
    const stopped: Served[] = [];
    try {
      for (let i = 0; i < CHECKS; i++) {
        await apiOk(a, 'POST', '/v1/checks/tcp', { name: `t${i}`, frequency: 1, frequencyOffset: 1 + i, request: { hostname: '127.0.0.1', port } });
      }
      const t0 = Date.now();
      await new Promise((r) => setTimeout(r, 6000));
      if (kill) {
        await a.stop('SIGKILL');
        stopped.push(a);
      }
      // 5 simulated minutes from the first due time, and one more for the last sessions to end.
      while (Date.now() - t0 < 14_000) await new Promise((r) => setTimeout(r, 100));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    const sessions = await sql<{ check_id: string; n: number }>(db, "SELECT check_id, count(*)::int AS n FROM records WHERE kind = 'checkSessions' GROUP BY check_id");
    const claims = await sql<{ check_id: string; due_ms: number; instance: string }>(db, 'SELECT check_id, due_ms::float8 AS due_ms, instance FROM run_claims ORDER BY check_id, due_ms');
    const checks = await sql<{ id: string }>(db, "SELECT id FROM records WHERE kind = 'checks'");
    expect(checks).toHaveLength(CHECKS);
    const instances = new Set<string>();
    const aPid = kill ? String(stopped[0].pid) : '';
    const lastOfA = Math.max(...claims.filter((c) => kill && c.instance.startsWith(`${aPid}-`)).map((c) => c.due_ms));
    for (const { id } of checks) {
      const due = claims.filter((c) => c.check_id === id);
      for (const c of due) instances.add(c.instance);
      // At least the 5 due times of a 5-minute window.
      expect(due.length, `claims of ${id}`).toBeGreaterThanOrEqual(5);
      const gaps = due.slice(1).map((c, i) => c.due_ms - due[i].due_ms);
      expect(new Set(gaps), `due times of ${id}: ${due.map((c) => c.due_ms).join(', ')}`).toEqual(new Set([PERIOD_MS]));
      const n = sessions.find((s) => s.check_id === id)?.n ?? 0;
      expect(n, `sessions of ${id} (claims: ${due.map((c) => `${c.due_ms}@${c.instance}`).join(', ')})`).toBe(due.length);
    }
    // Both instances ran some of the runs.
    expect(instances.size).toBe(2);
    if (kill) {
      // After the kill every due time went to the survivor.
      expect(claims.filter((c) => c.due_ms > lastOfA).every((c) => !c.instance.startsWith(`${aPid}-`))).toBe(true);
      expect(claims.filter((c) => c.due_ms > lastOfA + PERIOD_MS).length).toBeGreaterThanOrEqual(CHECKS * 2);
    }
  }

  it('every due time of each check runs exactly once, none missing, none doubled', async () => {
    await runTwo(false);
  });

  it('the same when one instance is killed (kill -9) halfway: the other takes every later due time', async () => {
    await runTwo(true);
  });
});
