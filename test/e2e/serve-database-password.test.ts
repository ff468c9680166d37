import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiOk, refusedServe, startServe } from '../helpers/serve.js';
import { pgDatabase } from '../helpers/pg-url.js';

// Database passwords never appear in what mac serve prints, and can stay out of its argv.

const dir = mkdtempSync(join(tmpdir(), 'mac-pw-'));

// The cases share nothing (each its files, its database) and run at once; the refusals within a
// case too. Generous time limits: a loaded machine took over 30 s to start one service.
describe.concurrent('mac serve and database passwords', { timeout: 150_000 }, () => {
  it('never prints a password of --database: user info, ?password= or ?sslpassword=', async () => {
    const [r, other] = await Promise.all([
      refusedServe(['--database', 'postgres://u:uinfoPW9@127.0.0.1:1/db?password=s3cretQ7&sslpassword=sslK3y5']),
      refusedServe(['--database', 'mysql://u:uinfoPW9@db/x?password=s3cretQ7']),
    ]);
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toContain('postgres://u:***@127.0.0.1:1/db?password=***&sslpassword=***: cannot open the database');
    for (const secret of ['uinfoPW9', 's3cretQ7', 'sslK3y5']) expect(out).not.toContain(secret);
    // A --database of another scheme is named by its scheme only.
    expect(other.stderr).toContain('--database must be sqlite:FILE or postgres://USER@HOST:PORT/DATABASE, not "mysql:..."');
    expect(other.stdout + other.stderr).not.toMatch(/uinfoPW9|s3cretQ7/);
  });

  it('takes the password from --database-password-file or PGPASSWORD, and prints it nowhere', async () => {
    const db = new URL(pgDatabase());
    const password = decodeURIComponent(db.password);
    db.password = '';
    const file = join(dir, 'pgpass');
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    const a = await startServe(['--no-runs', '--database', db.toString(), '--database-password-file', file]);
    try {
      await apiOk(a, 'POST', '/v1/snippets', { name: 's', script: '// s' });
      expect(a.log()).toContain(`state: postgres://postgres:***@${db.host}${db.pathname} (PostgreSQL)`);
      expect(a.log()).not.toContain(password);
    } finally {
      await a.stop();
    }
    const b = await startServe(['--no-runs', '--database', db.toString()], { PGPASSWORD: password });
    try {
      expect((await apiOk(b, 'GET', '/v1/snippets')).map((s: any) => s.name)).toEqual(['s']);
      expect(b.log()).not.toContain(password);
    } finally {
      await b.stop();
    }
    // A wrong password: the error names the database, not the password.
    writeFileSync(file, 'wrongPW42\n');
    const wrong = await refusedServe(['--database', db.toString(), '--database-password-file', file]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('cannot open the database');
    expect(wrong.stdout + wrong.stderr).not.toContain('wrongPW42');
  });

  it('refuses a password given twice, an empty file and a file that is not there, naming the flag', async () => {
    const file = join(dir, 'twice');
    writeFileSync(file, 'x\n');
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    const [twice, blank, missing, sqlite] = await Promise.all([
      refusedServe(['--database', 'postgres://u:inUrlPW@127.0.0.1:1/db', '--database-password-file', file]),
      refusedServe(['--database', 'postgres://u@127.0.0.1:1/db', '--database-password-file', empty]),
      refusedServe(['--database', 'postgres://u@127.0.0.1:1/db', '--database-password-file', join(dir, 'missing')]),
      refusedServe(['--state', join(dir, 'x.db'), '--database-password-file', empty]),
    ]);
    expect(twice.stderr).toContain('--database-password-file: the --database URL already holds a password; give it in one place');
    expect(twice.stderr).not.toContain('inUrlPW');
    expect(blank.stderr).toContain('--database-password-file: the file must hold the password on one line');
    expect(missing.stderr).toContain(`--database-password-file: cannot read ${join(dir, 'missing')}: ENOENT`);
    expect(sqlite.stderr).toContain('--database-password-file needs a PostgreSQL --database');
  });
});
