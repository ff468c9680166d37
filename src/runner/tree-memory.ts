import { readdir, readFile } from 'node:fs/promises';

/**
 * The memory of a whole process tree (a script run with its children: Chromium's browser,
 * renderer and GPU processes, or whatever the script spawns), measured from /proc and bounded
 * by killing the tree. Per-process rlimits cannot bound a tree (ten processes under a 2.5 GiB
 * data limit hold 25 GiB), and a memory cgroup needs a delegated, writable cgroup v2 hierarchy,
 * which a service cannot count on (containers and CI runners rarely give one); /proc is always
 * there.
 *
 * One poller serves every watched tree: every POLL_MS it lists /proc, reads each process's
 * parent and resident memory from its `status` (anonymous and shared-memory pages: heaps,
 * buffers, tmpfs mappings; not the file pages of code, which the kernel can drop), and sums them
 * over the descendants of each tree's root. Reading every process's `status` each time cost a
 * tenth of a core on a machine of 125 processes, so the parents are kept between polls: a
 * process seen before is read again only when it is in a watched tree (its memory and parent
 * are read every poll), when its parent has ended (it was given another one), and at every
 * FULL_SCAN_EVERY-th poll, when every process is read again (a parent's pid taken by a new
 * process between two polls is thus believed for at most that long). Memory that processes share (copy-on-write pages of
 * a fork) counts once per process there, so a sum over the limit is confirmed with the
 * proportional figures of `smaps_rollup` (shared pages divided between their sharers) before the
 * tree is stopped. A tree is thus stopped within about POLL_MS of going over its limit; in that
 * time it can allocate more, which the per-process data limit bounds.
 */

/** The memory a script run may hold with all its processes: the reference's 2.7 GiB of a browser run with its children. */
export const TREE_MEMORY_BYTES = Math.round(2.7 * 1024 ** 3);

/** How often the trees are measured (ms). */
export const POLL_MS = 250;
/** Every how many polls the parent of every process is read again. */
export const FULL_SCAN_EVERY = 8;

/** One watched tree. */
interface Watch {
  root: number;
  limitBytes: number;
  onOver: (bytes: number) => void;
  done: boolean;
}

const watches = new Set<Watch>();
let timer: NodeJS.Timeout | undefined;
let scanning = false;
/** The parent of every process seen by the last poll, by pid. */
const parents = new Map<number, number>();
/** Polls since every process was read. */
let sinceFullScan = 0;

/** A process as the poller reads it. */
interface Proc {
  pid: number;
  ppid: number;
  /** RssAnon + RssShmem, bytes. */
  bytes: number;
}

/**
 * Calls `onOver(bytes)` once when the processes of the tree under `root` (itself and every
 * descendant) hold more than `limitBytes` together; returns the function that stops watching.
 */
export function watchTreeMemory(root: number, limitBytes: number, onOver: (bytes: number) => void): () => void {
  const w: Watch = { root, limitBytes, onOver, done: false };
  watches.add(w);
  if (timer === undefined) {
    timer = setInterval(() => void poll(), POLL_MS);
    timer.unref();
  }
  return () => {
    w.done = true;
    watches.delete(w);
    if (watches.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
      parents.clear();
    }
  };
}

/** Trees watched now (for tests). */
export function watchedTrees(): number {
  return watches.size;
}

async function poll(): Promise<void> {
  // A slow scan (a loaded machine, a fork bomb's many processes) is not stacked on.
  if (scanning || watches.size === 0) return;
  scanning = true;
  try {
    const full = sinceFullScan === 0;
    sinceFullScan = (sinceFullScan + 1) % FULL_SCAN_EVERY;
    await refreshParents(full);
    for (const w of [...watches]) {
      if (w.done) continue;
      const { tree, procs } = await treeOf(w.root);
      let bytes = 0;
      for (const pid of tree) bytes += procs.get(pid)?.bytes ?? 0;
      if (bytes <= w.limitBytes) continue;
      const proportional = await proportionalBytes(tree);
      const measured = proportional ?? bytes;
      if (measured > w.limitBytes && !w.done) {
        w.done = true;
        watches.delete(w);
        w.onOver(measured);
      }
    }
  } catch {
    // /proc could not be listed: nothing is measured this time.
  } finally {
    scanning = false;
  }
}

/**
 * Brings `parents` up to the processes of /proc: ended ones dropped; new ones, those whose
 * parent ended, and (`full`) every one read.
 */
async function refreshParents(full: boolean): Promise<void> {
  const alive = new Set<number>();
  for (const name of await readdir('/proc')) if (/^\d+$/.test(name)) alive.add(Number(name));
  for (const pid of parents.keys()) if (!alive.has(pid)) parents.delete(pid);
  const stale = [...alive].filter((pid) => {
    if (full) return true;
    const ppid = parents.get(pid);
    return ppid === undefined || (ppid > 1 && !alive.has(ppid));
  });
  await Promise.all(stale.map((pid) => readProc(pid)));
}

/** A process's `status`, its parent kept in `parents`; null (and forgotten) when it has ended. */
async function readProc(pid: number): Promise<Proc | null> {
  const text = await readFile(`/proc/${pid}/status`, 'latin1').catch(() => null);
  const p = text === null ? null : parseStatus(text);
  if (p === null) parents.delete(pid);
  else parents.set(pid, p.ppid);
  return p;
}

/** Children by parent. */
function childrenOf(parentOf: ReadonlyMap<number, number>): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parentOf) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  return children;
}

/**
 * The processes of the tree under `root`, each read now: where a member's parent read now is not
 * the one kept, the tree is walked again with it (a few times at most). A member counts when its
 * parent read now is in the tree.
 */
async function treeOf(root: number): Promise<{ tree: number[]; procs: Map<number, Proc> }> {
  const procs = new Map<number, Proc>();
  let tree: number[] = [];
  for (let round = 0; round < 4; round++) {
    tree = descendants(root, childrenOf(parents));
    const unread = tree.filter((pid) => !procs.has(pid));
    const kept = new Map(unread.map((pid) => [pid, parents.get(pid)]));
    let moved = false;
    for (const p of await Promise.all(unread.map((pid) => readProc(pid)))) {
      if (p === null) continue;
      procs.set(p.pid, p);
      if (p.ppid !== kept.get(p.pid)) moved = true;
    }
    if (!moved) break;
  }
  const walked = new Set(tree);
  return { tree: tree.filter((pid) => procs.has(pid) && (pid === root || walked.has(procs.get(pid)!.ppid))), procs };
}

/** `root` and every process under it. */
export function descendants(root: number, children: ReadonlyMap<number, readonly number[]>): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const c of children.get(out[i]) ?? []) out.push(c);
  return out;
}

/** Pid, parent and RssAnon + RssShmem of a /proc/<pid>/status text; null when it has no Pid line. */
export function parseStatus(text: string): Proc | null {
  const field = (name: string): number | null => {
    const m = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  const pid = field('Pid');
  if (pid === null) return null;
  // Kernel threads and zombies have no Rss lines: no memory.
  const kib = (field('RssAnon') ?? 0) + (field('RssShmem') ?? 0);
  return { pid, ppid: field('PPid') ?? 0, bytes: kib * 1024 };
}

/** Pss_Anon + Pss_Shmem summed over `pids`, bytes; null where smaps_rollup or those fields are missing. */
async function proportionalBytes(pids: readonly number[]): Promise<number | null> {
  let total = 0;
  let seen = false;
  for (const pid of pids) {
    const text = await readFile(`/proc/${pid}/smaps_rollup`, 'latin1').catch(() => null);
    if (text === null) continue;
    const anon = /^Pss_Anon:\s+(\d+) kB/m.exec(text);
    if (!anon) return null;
    const shmem = /^Pss_Shmem:\s+(\d+) kB/m.exec(text);
    total += (Number(anon[1]) + (shmem ? Number(shmem[1]) : 0)) * 1024;
    seen = true;
  }
  return seen ? total : null;
}

/** `2.7 GiB`, `512 MiB`: a byte count for messages. */
export function formatBytes(bytes: number): string {
  const gib = bytes / 1024 ** 3;
  if (gib >= 1) return `${Number(gib.toFixed(1))} GiB`;
  return `${Math.round(bytes / 1024 ** 2)} MiB`;
}
