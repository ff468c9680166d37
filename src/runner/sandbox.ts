import { spawn, spawnSync } from 'node:child_process';
import { open as openFile } from 'node:fs/promises';
import { accessSync, constants, existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { lchown } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { watchTreeMemory } from './tree-memory.js';

/**
 * The script sandbox: every user script (multi-step, browser, setup and teardown scripts) runs as
 * a process tree inside bubblewrap (`bwrap`), in its own mount, PID, IPC, UTS, user and cgroup
 * namespaces. It sees a read-only system (/usr and the library dirs, a few files of /etc, the
 * Node binary and the packages the caller names), a fresh /proc of its own PID namespace, a
 * size-bounded tmpfs /tmp that is also HOME, and its work dir read-write; nothing else of the
 * host: not the service's working directory, database, --keys file or environment. The network
 * is shared (checks need it). Limits are rlimits set inside the new user namespace (so that the
 * process count is counted per sandbox, docs/security.md), and a wall-clock limit that kills the
 * whole PID namespace.
 *
 * The module is the reusable layer: it builds the command (sandboxCommand), tells whether it
 * works here (bwrapAvailable), and runs a process with a time limit and bounded output
 * (runProcess), whether sandboxed or not.
 */

/** Limits of one sandboxed process tree. */
export interface SandboxLimits {
  /**
   * RLIMIT_DATA of every process, bytes: its writable private memory (heap, anonymous maps).
   * Not RLIMIT_AS: V8 reserves address space it never uses (10 GiB per WebAssembly memory, its
   * code range), and under an address-space limit Node failed to start or to fetch at random.
   */
  dataBytes: number;
  /** RLIMIT_NPROC inside the sandbox: processes and threads together (Node has ~10 threads). */
  processes: number;
  /** RLIMIT_FSIZE: the largest file a process may write, bytes. */
  fileBytes: number;
  /** Size of the tmpfs mounted on /tmp (which is HOME too), bytes. */
  tmpBytes: number;
  /** RLIMIT_NOFILE: open files per process. */
  openFiles: number;
}

/** Defaults for a Node script run: 2.5 GiB of data per process, 256 tasks, 64 MiB files, 64 MiB of /tmp. */
export const SANDBOX_DEFAULTS: SandboxLimits = {
  dataBytes: 2.5 * 1024 ** 3,
  processes: 256,
  fileBytes: 64 * 1024 ** 2,
  tmpBytes: 64 * 1024 ** 2,
  openFiles: 1024,
};

/** What a sandboxed command gets. */
export interface SandboxSpec {
  /** Host directory bound read-write at the same path (the run's files). */
  workDir: string;
  /** The whole environment of the command; PATH, HOME and TMPDIR are set by the sandbox. */
  env: Record<string, string>;
  limits?: Partial<SandboxLimits>;
  /** Further host paths bound read-only at the same path (packages the script needs). */
  readOnly?: string[];
}

/** A command to spawn: the program, its arguments, and the user it must run as (when mac is root). */
export interface SpawnPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Set when mac runs as root: the sandbox runs as this unprivileged user instead. */
  uid?: number;
  gid?: number;
}

/**
 * The user a sandbox runs as when mac runs as root ("nobody"). As root, RLIMIT_NPROC would not
 * apply (the kernel exempts uid 0) and a process escaping the namespaces would be root; as
 * nobody, the user namespace bwrap creates counts the sandbox's processes on their own.
 */
export const SANDBOX_UID = 65534;

/** PATH inside the sandbox. */
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';
/** Files of /etc a script may need: TLS roots, name resolution, time zone. */
const ETC_FILES = ['/etc/ld.so.cache', '/etc/ssl', '/etc/ca-certificates', '/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/host.conf', '/etc/gai.conf', '/etc/localtime', '/etc/passwd', '/etc/group'];
/** Top-level library and binary dirs: symlinks into /usr on merged-/usr systems, dirs elsewhere. */
const TOP_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** The `bwrap` binary: MAC_BWRAP when set (empty: none, as where it is not installed), else the first on PATH; null when there is none. */
export function bwrapPath(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.MAC_BWRAP !== undefined) return isExecutable(env.MAC_BWRAP) ? env.MAC_BWRAP : null;
  return which('bwrap', env.PATH);
}

function which(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? '/usr/bin:/bin').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The message of a script run refused because there is no working sandbox. */
export function noSandboxMessage(reason: string): string {
  return `scripts run only in a bubblewrap sandbox, which is not available here (${reason}): install it (apt-get install -y bubblewrap) or start mac serve with --unsafe-scripts to run scripts as the service's own user`;
}

/** Whether the sandbox works here, and why not. */
export type SandboxAvailability = { ok: true; bwrap: string } | { ok: false; reason: string };

let probed: { key: string; result: SandboxAvailability } | undefined;

/**
 * Whether scripts can run sandboxed: `bwrap` and dash or prlimit exist and a sandbox with every
 * namespace starts (user namespaces may be disabled, e.g. in some containers). Probed once per
 * bwrap path, synchronously when probeSandbox has not answered before (a bwrap start: a few ms
 * on an idle machine, much more on a loaded one, all of it holding the event loop).
 */
export function bwrapAvailable(env: NodeJS.ProcessEnv = process.env): SandboxAvailability {
  const bwrap = bwrapPath(env);
  const key = probeKey(bwrap, env);
  if (probed?.key === key) return probed.result;
  let result = missingPart(bwrap, env);
  if (!result) {
    const plan = sandboxCommand(['/bin/true'], { workDir: '/', env: {} }, bwrap!);
    const r = spawnSync(plan.file, plan.args, { env: plan.env, uid: plan.uid, gid: plan.gid, encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] });
    result = probeOutcome(bwrap!, r.status, r.error?.message ?? r.stderr);
  }
  probed = { key, result };
  return result;
}

let probing: { key: string; result: Promise<SandboxAvailability> } | undefined;

/**
 * The probe of bwrapAvailable without holding the event loop: `mac serve` starts it as its
 * modules load and its store opens, and awaits it before it says it listens; bwrapAvailable then
 * answers from it.
 */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env): Promise<SandboxAvailability> {
  const bwrap = bwrapPath(env);
  const key = probeKey(bwrap, env);
  if (probed?.key === key) return Promise.resolve(probed.result);
  if (probing?.key === key) return probing.result;
  const missing = missingPart(bwrap, env);
  if (missing) {
    probed = { key, result: missing };
    return Promise.resolve(missing);
  }
  const plan = sandboxCommand(['/bin/true'], { workDir: '/', env: {} }, bwrap!);
  const result = new Promise<SandboxAvailability>((resolve) => {
    let stderr = '';
    let settled = false;
    const settle = (status: number | null, detail?: string) => {
      if (settled) return;
      settled = true;
      resolve(probeOutcome(bwrap!, status, detail ?? stderr));
    };
    const child = spawn(plan.file, plan.args, { env: plan.env, uid: plan.uid, gid: plan.gid, timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.setEncoding('utf8');
    // Its first line is what the reason shows: a bounded read.
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 4096) stderr += d.slice(0, 4096 - stderr.length);
    });
    child.on('error', (err) => settle(null, err.message));
    child.on('close', (status, signal) => settle(status, status === null && signal === 'SIGTERM' ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s` : undefined));
  }).then((r) => {
    if (probing?.key === key) probing = undefined;
    probed = { key, result: r };
    return r;
  });
  probing = { key, result };
  return result;
}

/** What a probe's answer holds for: the bwrap path, or (none) the MAC_BWRAP its reason names. */
function probeKey(bwrap: string | null, env: NodeJS.ProcessEnv): string {
  return bwrap ?? `none:${env.MAC_BWRAP ?? ''}`;
}

/** How long a probe's sandbox may take to start and end. */
const PROBE_TIMEOUT_MS = 10_000;

/** Why there can be no sandbox before starting one: no bwrap, or nothing to set its limits with. */
function missingPart(bwrap: string | null, env: NodeJS.ProcessEnv): SandboxAvailability | undefined {
  if (bwrap === null) return { ok: false, reason: env.MAC_BWRAP ? `MAC_BWRAP=${env.MAC_BWRAP} is not an executable` : 'bwrap is not installed' };
  if (!isExecutable(LIMIT_SHELL) && !isExecutable(PRLIMIT)) return { ok: false, reason: `neither ${LIMIT_SHELL} nor ${PRLIMIT} (util-linux) is installed` };
  return undefined;
}

/** What the exit of a probe's sandbox tells (`detail`: its error or its stderr). */
function probeOutcome(bwrap: string, status: number | null, detail: string | undefined): SandboxAvailability {
  if (status === 0) return { ok: true, bwrap };
  return { ok: false, reason: `${bwrap} cannot start a sandbox: ${(detail ?? '').trim().split('\n')[0] || `exit code ${status}`}` };
}

/**
 * What sets the limits inside the sandbox, then runs the command in its place: dash's `ulimit`
 * (one limit per call; -f and -c in 512-byte blocks, -d in KiB, -p processes) where dash is
 * installed (Debian's /bin/sh), else util-linux's prlimit. dash starts in a fraction of the time
 * of prlimit, whose libraries took 40-50 ms to load on a loaded machine (bench/sandbox.mjs).
 */
const LIMIT_SHELL = '/bin/dash';
const PRLIMIT = '/usr/bin/prlimit';

/** The dash `-c` text that sets `limits` on itself and runs its arguments in its place. */
export function limitScript(limits: SandboxLimits): string {
  const blocks = Math.max(1, Math.floor(limits.fileBytes / 512));
  const kib = Math.max(1, Math.floor(limits.dataBytes / 1024));
  const set = [`-p ${Math.floor(limits.processes)}`, `-d ${kib}`, `-f ${blocks}`, `-n ${Math.floor(limits.openFiles)}`, '-c 0'];
  return `${set.map((s) => `ulimit ${s}`).join(' && ')} && exec "$@"`;
}

/** The command that sets `limits` and runs `argv`. */
function limited(argv: string[], limits: SandboxLimits): string[] {
  if (isExecutable(LIMIT_SHELL)) return [LIMIT_SHELL, '-c', limitScript(limits), 'sandbox', ...argv];
  return [
    PRLIMIT,
    `--nproc=${Math.floor(limits.processes)}`,
    `--data=${Math.floor(limits.dataBytes)}`,
    `--fsize=${Math.floor(limits.fileBytes)}`,
    `--nofile=${Math.floor(limits.openFiles)}`,
    '--core=0',
    '--',
    ...argv,
  ];
}

/**
 * The bwrap command line that runs `argv` sandboxed. `argv[0]` must be an absolute path visible
 * inside (under /usr, or the Node binary). The limits are set by dash's ulimit (or prlimit) as
 * the first process inside the new user namespace: RLIMIT_NPROC is then counted for this sandbox alone, not for
 * every process of the user.
 */
export function sandboxCommand(argv: string[], spec: SandboxSpec, bwrap = bwrapPath() ?? 'bwrap'): SpawnPlan {
  const limits = { ...SANDBOX_DEFAULTS, ...spec.limits };
  const args: string[] = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    // No nested user namespace: it could not lift the limits, but it is kernel attack surface.
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
    '--clearenv',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  args.push(...systemBinds());
  const readOnly = [...nodeDirs(), ...(spec.readOnly ?? [])];
  // /dev is bwrap's own tmpfs, as large as half the machine's memory: read-only, with a /dev/shm
  // (POSIX shared memory) bounded like /tmp, so that files cannot hold memory past the limits.
  args.push('--proc', '/proc', '--dev', '/dev', '--size', String(limits.tmpBytes), '--tmpfs', '/dev/shm', '--remount-ro', '/dev');
  args.push('--size', String(limits.tmpBytes), '--tmpfs', '/tmp');
  for (const path of readOnly) args.push('--ro-bind', path, path);
  args.push('--bind', spec.workDir, spec.workDir, '--chdir', spec.workDir);
  const env: Record<string, string> = { ...spec.env, PATH: SANDBOX_PATH, HOME: '/tmp', TMPDIR: '/tmp' };
  for (const [key, value] of Object.entries(env)) args.push('--setenv', key, value);
  args.push(...limited(argv, limits));
  // As root the sandbox runs as nobody, unless what it must read lies behind a directory nobody
  // cannot enter (mac installed in root's private home or temp dir): then bwrap runs as root,
  // still in its namespaces, without the task limit's own count (the kernel exempts uid 0).
  const root = runsAsNobody([...readOnly, spec.workDir]);
  // bwrap gets an empty environment of its own: --setenv gives the command its variables.
  return { file: bwrap, args, env: {}, ...(root ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {}) };
}

/**
 * How long what sandboxCommand reads of the host's system (links of /bin and /lib, real paths
 * of /etc files, the Node install, whether nobody can reach a directory) is reused: a run does
 * not stat the same files again (bench/sandbox.mjs), and a change (a new resolv.conf link) is
 * seen within this time.
 */
const SYSTEM_MEMO_MS = 10_000;
let systemMemo: { at: number; binds: string[]; nodeDirs: string[]; reachable: Map<string, boolean> } | undefined;

function memo(): NonNullable<typeof systemMemo> {
  const now = performance.now();
  if (systemMemo === undefined || now - systemMemo.at > SYSTEM_MEMO_MS) {
    const binds: string[] = [];
    for (const dir of TOP_DIRS) {
      const link = symlinkTarget(dir);
      if (link !== null) binds.push('--symlink', link, dir);
      else if (existsSync(dir)) binds.push('--ro-bind', dir, dir);
    }
    for (const file of ETC_FILES) {
      const real = realOrNull(file);
      if (real !== null) binds.push('--ro-bind', real, file);
    }
    const prefix = dirname(dirname(realOrNull(process.execPath) ?? process.execPath));
    systemMemo = { at: now, binds, nodeDirs: prefix === '/usr' || prefix.startsWith('/usr/') ? [] : [prefix], reachable: new Map() };
  }
  return systemMemo;
}

/** The binds of the read-only system: /usr's top-level links or dirs and the files of /etc a script needs. */
function systemBinds(): string[] {
  return memo().binds;
}

/** Whether a sandbox reading `paths` runs as SANDBOX_UID: mac runs as root and that uid can reach them all. */
function runsAsNobody(paths: readonly string[]): boolean {
  return process.getuid?.() === 0 && [...nodeDirs(), ...paths].every(reachableByNobody);
}

/** The Node install the sandbox binds when it lies outside /usr. */
function nodeDirs(): string[] {
  return memo().nodeDirs;
}

/** Whether uid SANDBOX_UID may reach `path`: every directory above it lets others (or that uid) pass. */
function reachableByNobody(path: string): boolean {
  return passable(dirname(path));
}

/** Whether SANDBOX_UID may pass through `dir` and every directory above it (remembered a while). */
function passable(dir: string): boolean {
  const known = memo().reachable;
  const seen = known.get(dir);
  if (seen !== undefined) return seen;
  let ok: boolean;
  try {
    const st = statSync(dir);
    ok = ((st.mode & 0o001) !== 0 || st.uid === SANDBOX_UID) && (dirname(dir) === dir || passable(dirname(dir)));
  } catch {
    ok = false;
  }
  known.set(dir, ok);
  return ok;
}

function symlinkTarget(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * Where runs make their work dirs. When mac runs as root the sandbox runs as SANDBOX_UID, and
 * bwrap (as that user) must reach the work dir: a TMPDIR inside a private directory (mode 0700)
 * cannot be bound, so /tmp is used then.
 */
export function scriptTempRoot(): string {
  const dir = tmpdir();
  if (process.getuid?.() !== 0) return dir;
  let path = realOrNull(dir) ?? dir;
  for (;;) {
    try {
      if ((statSync(path).mode & 0o001) === 0) return '/tmp';
    } catch {
      return '/tmp';
    }
    const up = dirname(path);
    if (up === path) return dir;
    path = up;
  }
}

/**
 * Gives a run's work dir and what it holds to the sandbox's user when mac runs as root (the
 * sandbox then runs as SANDBOX_UID and must write its results there). Links are not followed.
 */
export async function handOver(dir: string, readOnly: readonly string[] = []): Promise<void> {
  if (!runsAsNobody([...readOnly, dir])) return;
  const walk = async (path: string): Promise<void> => {
    await lchown(path, SANDBOX_UID, SANDBOX_UID);
    const st = lstatSync(path);
    if (st.isDirectory()) for (const name of readdirSync(path)) await walk(join(path, name));
  };
  await walk(dir);
}

/** How a process run by runProcess ended. */
export interface ProcessEnd {
  code: number | null;
  /** The signal that ended the process, if one did. */
  signal?: NodeJS.Signals | null;
  /** Killed at its time limit. */
  killed: boolean;
  /** Killed by stopScriptRuns (shutdown), not by the time limit. */
  stopped: boolean;
  /** Killed because the tree held more than `treeMemoryBytes`: what it held then (bytes); null otherwise. */
  overMemoryBytes: number | null;
  /** The first `maxOutputBytes` of stdout and stderr together. */
  output: string;
  spawnError: string | null;
}

/** Kills of the process trees running now: a stop (service shutdown, exit) ends them all. */
const live = new Set<() => void>();
let exitHooked = false;

/** Ends every script process under way (their runs report a stop). */
export function stopScriptRuns(): void {
  for (const stop of [...live]) stop();
}

/** Script processes running now. */
export function liveScriptRuns(): number {
  return live.size;
}

/** What runProcess runs and how long it may take. */
export interface ProcessSpec extends SpawnPlan {
  cwd: string;
  /** The whole tree is killed after this (ms). */
  killAfterMs: number;
  /** Bytes of stdout+stderr kept; the rest is read and dropped. */
  maxOutputBytes: number;
  /** Written to stdin, which is then closed. */
  stdin?: string;
  /** The memory the whole process tree may hold (tree-memory.ts); the tree is killed past it. Unbounded when absent. */
  treeMemoryBytes?: number;
}

/**
 * Spawns a process as the leader of a new process group and kills the group at the time limit,
 * on stopScriptRuns, and when it exits (what it left behind goes too). For a bwrap sandbox,
 * killing bwrap kills the sandbox's PID 1 (--die-with-parent), and the kernel then kills every
 * process of its PID namespace, however detached.
 */
export function runProcess(spec: ProcessSpec): Promise<ProcessEnd> {
  return new Promise((resolve) => {
    let output = '';
    let bytes = 0;
    let killed = false;
    let stopped = false;
    let overMemoryBytes: number | null = null;
    if (!exitHooked) {
      exitHooked = true;
      // A process group outlives its parent: one that exits takes its runs along.
      process.once('exit', stopScriptRuns);
    }
    const child = spawn(spec.file, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      uid: spec.uid,
      gid: spec.gid,
      detached: true,
      stdio: [spec.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      if (bytes >= spec.maxOutputBytes) return;
      const part = chunk.subarray(0, spec.maxOutputBytes - bytes);
      bytes += part.length;
      output += part.toString('utf8');
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    if (spec.stdin !== undefined && child.stdin) {
      // A script that never reads its input must not fail the write.
      child.stdin.on('error', () => undefined);
      child.stdin.end(spec.stdin);
    }
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      killed = true;
      killGroup();
    }, spec.killAfterMs);
    const stop = () => {
      stopped = true;
      killGroup();
    };
    live.add(stop);
    const unwatch =
      spec.treeMemoryBytes !== undefined && child.pid !== undefined
        ? watchTreeMemory(child.pid, spec.treeMemoryBytes, (bytes) => {
            if (killed || stopped) return;
            overMemoryBytes = bytes;
            killGroup();
          })
        : () => undefined;
    child.once('error', (err) => {
      clearTimeout(timer);
      unwatch();
      live.delete(stop);
      resolve({ code: null, killed: false, stopped: false, overMemoryBytes: null, output, spawnError: err.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      unwatch();
      live.delete(stop);
      killGroup();
      resolve({ code, signal, killed: killed && !stopped, stopped, overMemoryBytes: stopped ? null : overMemoryBytes, output, spawnError: null });
    });
  });
}

/** How scripts may run: `sandbox` only (the service), or unsandboxed where bwrap is missing (`mac test`, `mac serve --unsafe-scripts`). */
export interface ScriptPolicy {
  /** Run scripts as mac's own user where the sandbox is not available. */
  allowUnsandboxed: boolean;
  /** Told once per process, when a script first runs unsandboxed. */
  onUnsandboxed?: (message: string) => void;
}

/** How the next script runs: sandboxed, unsandboxed (allowed), or refused with the reason. */
export type ScriptMode = { kind: 'sandboxed'; bwrap: string } | { kind: 'unsandboxed' } | { kind: 'refused'; message: string };

/** The one-line notice of a script run without the sandbox. */
export const UNSANDBOXED_NOTICE = 'bubblewrap is not available: scripts run unsandboxed, as this user, like the project\'s own code (apt-get install -y bubblewrap to sandbox them)';

let noticeGiven = false;

/** Decides how a script runs under `policy` (the default refuses without the sandbox). */
export function scriptMode(policy: ScriptPolicy | undefined): ScriptMode {
  const available = bwrapAvailable();
  if (available.ok) return { kind: 'sandboxed', bwrap: available.bwrap };
  if (!policy?.allowUnsandboxed) return { kind: 'refused', message: noSandboxMessage(available.reason) };
  if (!noticeGiven) {
    noticeGiven = true;
    policy.onUnsandboxed?.(UNSANDBOXED_NOTICE);
  }
  return { kind: 'unsandboxed' };
}

/**
 * At most `max` bytes of a file a script run wrote, as text; "" when it does not exist. `whole`:
 * a file longer than `max` is not read at all ("" too) instead of cut.
 */
export async function readBounded(path: string, max: number, whole = false): Promise<string> {
  let handle;
  try {
    handle = await openFile(path, 'r');
  } catch {
    return '';
  }
  try {
    const room = whole ? max + 1 : max;
    const buf = Buffer.alloc(room);
    const { bytesRead } = await handle.read(buf, 0, room, 0);
    return bytesRead > max ? '' : buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
