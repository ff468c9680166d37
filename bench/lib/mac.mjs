// Runs the built `mac` CLI as a child process, timing it and measuring its peak memory.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { track } from './resources.mjs';

/** The CLI entry point `npm run bench` builds. */
export const MAC_BIN = fileURLToPath(new URL('../../bin/mac.js', import.meta.url));

const GNU_TIME = '/usr/bin/time';
const useGnuTime = existsSync(GNU_TIME);

/**
 * Runs `mac ARGS` with `env` added to the environment (and `nodeArgs` given to node first). Resolves (never rejects on a non-zero
 * exit) to `{code, stdout, stderr, wallMs, cpuMs, peakRssMb}`. The peak RSS is the child's
 * high-water mark: from GNU time when installed, else from polling /proc/PID/status VmHWM.
 * CPU time (user + system) comes from GNU time only (null without it); unlike wall time it
 * hardly moves when other processes compete for the cores.
 */
export function runMac(args, { env = {}, cwd, nodeArgs = [] } = {}) {
  const command = useGnuTime ? GNU_TIME : process.execPath;
  const argv = useGnuTime ? ['-v', process.execPath, ...nodeArgs, MAC_BIN, ...args] : [...nodeArgs, MAC_BIN, ...args];
  const started = performance.now();
  const child = track(spawn(command, argv, { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  const out = [];
  const err = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => err.push(d));
  let polledKb = 0;
  const poll = useGnuTime ? undefined : setInterval(() => (polledKb = Math.max(polledKb, vmHwmKb(child.pid))), 10);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const wallMs = performance.now() - started;
      if (poll) clearInterval(poll);
      let stderr = Buffer.concat(err).toString('utf8');
      let rssKb = polledKb;
      let cpuMs = null;
      if (useGnuTime) {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        rssKb = m ? Number(m[1]) : 0;
        const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
        const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
        if (user && system) cpuMs = (Number(user[1]) + Number(system[1])) * 1000;
        stderr = stderr.replace(/\n?\tCommand being timed:[\s\S]*$/, '');
        // GNU time reports a signal or a non-zero exit of the command on its own line.
        stderr = stderr.replace(/\n?Command (exited with non-zero status|terminated by signal) \d+\s*$/, '');
      }
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString('utf8'), stderr, wallMs, cpuMs, peakRssMb: rssKb / 1024 });
    });
  });
}

function vmHwmKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
