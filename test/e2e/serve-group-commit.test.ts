import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiOk, startServe } from '../helpers/serve.js';
import { startTcpServer } from '../helpers/tcp-server.js';
import { pgDatabase } from '../helpers/pg-url.js';
import { Store } from '../../src/server/store/store.js';
import { RUN_COLL, RUN_INDEX } from '../../src/server/rundata/collections.js';
import type { CheckResult, StoredSession } from '../../src/server/rundata/types.js';

/**
 * Scheduled run data is group-committed (written every few ms): SIGTERM must still write every
 * run recorded before the service exits. The scheduler waits for the sessions under way, so after
 * a SIGTERM every stored session has ended and every result it names is stored.
 */
// Each store's case has its own database, target and service: the two run at once (one after
// the other, each waited out its own start-up, 2.5 s of runs and stop).
describe.concurrent.each([
  ['SQLite', () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'mac-group-e2e-')), 'state.db')}`],
  ['PostgreSQL', () => pgDatabase()],
] as const)('mac serve on %s: SIGTERM loses no recorded run (built CLI)', (_name, database) => {
  it('every session recorded before SIGTERM is stored, ended, with its results', async () => {
    const target = await startTcpServer({ banner: '+OK\r\n' });
    const db = database();
    const s = await startServe(['--database', db, '--time-scale', '720', '--rate-limit', '0/60']);
    const checks: string[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const c = await apiOk(s, 'POST', '/v1/checks/tcp', {
          name: `tcp ${i}`,
          frequency: 1,
          locations: ['eu-west-1', 'us-east-1'],
          runParallel: true,
          // The type's widest thresholds: a connect timed on a loaded machine is not what this test is about.
          degradedResponseTime: 5000,
          maxResponseTime: 5000,
          request: { hostname: target.host, port: target.port },
        });
        checks.push(c.id);
      }
      // Sessions every few ms: some are under way, some only queued in memory, at any moment.
      await new Promise((r) => setTimeout(r, 2500));
    } finally {
      await s.stop('SIGTERM');
      await target.close();
    }
    // The stop ran to its end (claims answered, sessions waited for, the store closed): an exit
    // before it, with nothing left that kept the process alive, loses the writes still pending.
    expect(s.exitCode(), s.log()).toBe(0);
    expect(s.log()).not.toMatch(/internal error|run failed/);
    const store = Store.open(db.startsWith('sqlite:') ? db.slice('sqlite:'.length) : db, RUN_INDEX);
    try {
      let sessions = 0;
      for (const checkId of checks) {
        const stored = store.query<StoredSession & Record<string, unknown>>('dev', RUN_COLL.checkSessions, { checkId, limit: 1000 });
        const results = new Set(store.query<CheckResult & Record<string, unknown>>('dev', RUN_COLL.checkResults, { checkId, limit: 1000 }).map((r) => r.id));
        sessions += stored.length;
        for (const session of stored) {
          expect(session.status, `session ${session.checkSessionId} of check ${checkId}`).toBe('PASSED');
          expect(session.finishedLocations).toHaveLength(2);
          for (const id of session.resultIds) expect(results.has(id), `result ${id} of session ${session.checkSessionId}`).toBe(true);
        }
        expect(results.size).toBe(stored.reduce((n, x) => n + x.resultIds.length, 0));
      }
      expect(sessions).toBeGreaterThan(checks.length);
    } finally {
      store.close();
    }
  }, 60_000);
});
