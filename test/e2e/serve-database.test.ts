import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { apiOk, callApi, expectAckedWritesSurviveKill, refusedServe, startServe } from '../helpers/serve.js';
import { createServer } from '../../src/server/server.js';
import { RunRecorder } from '../../src/server/rundata/recorder.js';
import { SCHEMA_VERSION } from '../../src/server/store/sqlite.js';
import { refusedAttempt, tcpAttempt } from './rundata-harness.js';

const tmpFile = (name: string) => join(mkdtempSync(join(tmpdir(), 'mac-serve-db-')), name);
const DAY = 86_400_000;


// Each case works on files of its own: the cases run at once, with generous time limits for a
// loaded machine.
describe.concurrent('mac serve on SQLite (built CLI)', { timeout: 150_000 }, () => {
  it('keeps every acknowledged write across kill -9 while writes are in flight (--database sqlite:FILE)', async () => {
    await expectAckedWritesSurviveKill(`sqlite:${tmpFile('state.db')}`);
  });

  it('imports a journal of an earlier version once, keeps it as FILE.journal-backup, and serves its records', async () => {
    const file = tmpFile('state.jsonl');
    const snippet = (id: number, name: string) => ({ id, name, script: 'return 1', created_at: '2026-01-01T00:00:00.000Z', updated_at: null });
    const text = [
      JSON.stringify({ c: { snippets: 2 } }),
      JSON.stringify({ a: 'dev', o: [['p', 'snippets', '1', snippet(1, 'one')], ['p', 'snippets', '2', snippet(2, 'two')]] }),
      JSON.stringify({ a: 'dev', o: [['d', 'snippets', '1']] }),
      '',
    ].join('\n');
    writeFileSync(file, text);
    const s = await startServe(['--state', file, '--no-runs']);
    try {
      expect(s.log()).toContain(`imported 3 journal entries; the journal is kept as ${file}.journal-backup`);
      expect(await apiOk(s, 'GET', '/v1/snippets')).toEqual([snippet(2, 'two')]);
      expect((await apiOk(s, 'POST', '/v1/snippets', { name: 'three', script: 'x' })).id).toBe(3);
    } finally {
      await s.stop();
    }
    expect(readFileSync(`${file}.journal-backup`, 'utf8')).toBe(text);
    const again = await startServe(['--state', file, '--no-runs']);
    try {
      expect(again.log()).not.toContain('imported');
      expect((await apiOk(again, 'GET', '/v1/snippets')).map((x: { name: string }) => x.name)).toEqual(['two', 'three']);
    } finally {
      await again.stop();
    }
  });

  it('refuses a journal with an empty middle line, naming the line, and leaves the file as it was', async () => {
    const file = tmpFile('state.jsonl');
    const text = '{"c":{"snippets":1}}\n\n{"a":"dev","o":[["p","snippets","1",{"id":1,"name":"one","script":"x"}]]}\n';
    writeFileSync(file, text);
    const r = await refusedServe(['--state', file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${file}:2: empty journal line`);
    expect(r.stdout).not.toContain('listening');
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(`${file}.journal-backup`)).toBe(false);
  });

  it('refuses a file that is neither a database nor a journal and leaves it byte-identical', async () => {
    const file = tmpFile('notes.txt');
    const bytes = Buffer.from('Dear diary,\n\ntoday the monitoring was green.\n\u00e9\u0000\u00ff', 'latin1');
    writeFileSync(file, bytes);
    const r = await refusedServe(['--database', `sqlite:${file}`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${file}: neither a mac serve database nor a mac serve journal`);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('refuses a database whose schema is newer than it knows', async () => {
    const file = tmpFile('state.db');
    const db = new Database(file);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    const r = await refusedServe(['--state', file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`database schema version ${SCHEMA_VERSION + 5} is newer than this mac serve knows (${SCHEMA_VERSION})`);
  });

  it('refuses --state with --database, a database URL it does not know, and a file it cannot open', async () => {
    const missing = join(tmpFile('x'), 'no-such-dir', 'state.db');
    const [both, pg, other, nodir] = await Promise.all([
      refusedServe(['--state', tmpFile('a.db'), '--database', `sqlite:${tmpFile('b.db')}`]),
      refusedServe(['--database', 'postgres://mac:hunter2secret@127.0.0.1:1/mac']),
      refusedServe(['--database', 'mysql://localhost/mac']),
      refusedServe(['--state', missing]),
    ]);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--state and --database both name the database');
    // PostgreSQL that does not answer: named without its password.
    expect(pg.code).toBe(1);
    expect(pg.stderr).toContain('postgres://mac:***@127.0.0.1:1/mac: cannot open the database');
    expect(pg.stderr).not.toContain('hunter2secret');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('--database must be sqlite:FILE or postgres://');
    expect(nodir.code).toBe(1);
    expect(nodir.stderr).toContain(`${missing}: cannot open the database`);
  });

  it('--retention-days deletes old run data in the background and keeps checks, channels and error groups', async () => {
    const file = tmpFile('state.db');
    const now = Date.now();
    const seed = createServer({ stateFile: file, retentionDays: 0, rateLimit: { limit: 0, windowSeconds: 60 } });
    const headers = { authorization: 'Bearer mac-dev-key', 'content-type': 'application/json' };
    const check = (await (await seed.request('/v1/checks/tcp', { method: 'POST', headers, body: JSON.stringify({ name: 'db', request: { hostname: 'db.internal', port: 5432 } }) })).json()) as { id: string };
    const channel = (await (await seed.request('/v1/alert-channels', { method: 'POST', headers, body: JSON.stringify({ type: 'EMAIL', config: { address: 'ops@example.com' } }) })).json()) as { id: number };
    const snap = { id: check.id, name: 'db', checkType: 'TCP', shouldFail: false, maxResponseTime: 5000 };
    const run = (at: number, failing: boolean) => {
      const recorder = new RunRecorder(seed.ctx.store, () => at);
      const session = recorder.openSession('dev', { check: snap, runLocations: ['eu-west-1'], startedAt: new Date(at).toISOString() });
      const done = recorder.finishLocation('dev', session.checkSessionId, failing ? refusedAttempt('eu-west-1', at) : tcpAttempt('eu-west-1', at));
      recorder.recordHeartbeatEvent('dev', { checkId: check.id, state: 'RECEIVED', timestamp: new Date(at).toISOString(), source: '127.0.0.1', userAgent: 'curl/8' });
      return { session: session.checkSessionId, result: done.result.id, group: done.errorGroup };
    };
    const old = Array.from({ length: 12 }, (_, i) => run(now - 40 * DAY + i * 60_000, true));
    const fresh = run(now - 60_000, false);
    await seed.close();

    // At --time-scale 10 the 30 days are 3 (the old data is 40 days old, the fresh a minute) and
    // the first step comes 0.5 s after the service listens instead of 5 s.
    const s = await startServe(['--state', file, '--no-runs', '--retention-days', '30', '--time-scale', '10']);
    try {
      const gone = async () => (await callApi(s, 'GET', `/v1/check-results/${check.id}/${old[11].result}`)).status === 404;
      const deadline = Date.now() + 20_000;
      while (!(await gone()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      for (const o of old) {
        expect((await callApi(s, 'GET', `/v1/check-results/${check.id}/${o.result}`)).status).toBe(404);
        expect((await callApi(s, 'GET', `/v1/check-sessions/${o.session}`)).status).toBe(404);
      }
      expect((await callApi(s, 'GET', `/v1/check-results/${check.id}/${fresh.result}`)).status).toBe(200);
      expect((await callApi(s, 'GET', `/v1/check-sessions/${fresh.session}`)).status).toBe(200);
      const events = (await apiOk(s, 'GET', `/v1/checks/heartbeats/${check.id}/events`))[0].events;
      expect(events.map((e: { timestamp: string }) => e.timestamp)).toEqual([new Date(now - 60_000).toISOString()]);
      // Configuration never expires; the error group keeps the first and last seen of expired results.
      expect((await callApi(s, 'GET', `/v1/checks/${check.id}`)).status).toBe(200);
      expect((await callApi(s, 'GET', `/v1/alert-channels/${channel.id}`)).status).toBe(200);
      const group = await apiOk(s, 'GET', `/v1/error-groups/${old[0].group!.id}`);
      expect(group.firstSeen).toBe(new Date(now - 40 * DAY).toISOString());
      expect(group.lastSeen).toBe(new Date(now - 40 * DAY + 11 * 60_000).toISOString());
    } finally {
      await s.stop();
    }
  });
});
