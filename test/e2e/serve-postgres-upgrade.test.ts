import { describe, expect, it } from 'vitest';
import { apiOk, startServe } from '../helpers/serve.js';
import { pgDatabase, pgSchemaV1Database } from '../helpers/pg-url.js';
import { PG_MIGRATIONS } from '../../src/server/store/postgres.js';

describe('mac serve upgrading a PostgreSQL schema (built CLI)', () => {
  it('says when it upgrades, from which version to which, and how long it took; never the password', async () => {
    const url = pgDatabase();
    await pgSchemaV1Database(url);

    const args = ['--database', url, '--no-runs', '--rate-limit', '0/60'];
    const s = await startServe(args);
    try {
      const log = s.log();
      const latest = PG_MIGRATIONS.length;
      expect(log).toMatch(new RegExp(`mac serve: upgrading postgres://[^ ]+ from schema version 1 to ${latest} \\(once;`));
      expect(log).toMatch(new RegExp(`mac serve: upgraded postgres://[^ ]+ to schema version ${latest} in \\d+\\.\\d s`));
      // The upgraded database serves.
      const check = await apiOk(s, 'POST', '/v1/checks/tcp', { name: 'db', request: { hostname: 'db.internal', port: 5432 } });
      expect((await apiOk(s, 'GET', `/v1/checks/${check.id}`)).name).toBe('db');
      const password = decodeURIComponent(new URL(url).password);
      if (password) expect(log).not.toContain(password);
    } finally {
      await s.stop();
    }
    // Once: the next start has nothing to upgrade.
    const again = await startServe(args);
    try {
      expect(again.log()).not.toContain('upgrad');
    } finally {
      await again.stop();
    }
  });
});
