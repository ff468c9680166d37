import { execFileSync } from 'node:child_process';

/**
 * An IPv4 address on this machine's own link that never answers ICMP, built by the test itself
 * so that 100% loss does not depend on how the machine's network treats outside addresses (here
 * TEST-NET addresses answer; elsewhere they are dropped or refused). A veth pair joins the root
 * namespace (holding 10.213.X.1/30) to a fresh network namespace whose end is up but has no
 * address: echo requests to 10.213.X.2 find no neighbour and get no reply. Needs root and `ip`
 * (Debian's iproute2, installed by .ci/run).
 */
export interface SilentHost {
  /** The address that does not answer. */
  address: string;
  /** Removes the pair and the namespace. */
  remove(): void;
}

function ip(args: string[]): void {
  try {
    execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new Error('the ICMP loss test needs `ip` (apt-get install -y iproute2)');
    throw new Error(`ip ${args.join(' ')} failed (the ICMP loss test runs as root): ${e.stderr?.toString().trim() ?? e.message}`);
  }
}

/** Creates a silent host; names are unique per process so parallel runs do not collide. */
export function createSilentHost(): SilentHost {
  const tag = (process.pid % 100000).toString(36) + Math.floor(Math.random() * 36 ** 3).toString(36);
  const ns = `macicmp-${tag}`;
  const near = `mi${tag}a`.slice(0, 15);
  const far = `mi${tag}b`.slice(0, 15);
  const subnet = 4 * Math.floor(Math.random() * 16000);
  const net = `10.213.${Math.floor(subnet / 256) % 256}.${subnet % 256}`;
  const base = net.split('.').map(Number);
  const at = (n: number) => `${base[0]}.${base[1]}.${base[2]}.${base[3] + n}`;
  ip(['netns', 'add', ns]);
  const remove = () => {
    for (const args of [['link', 'del', near], ['netns', 'del', ns]]) {
      try {
        execFileSync('ip', args, { stdio: 'ignore' });
      } catch {
        // already gone
      }
    }
  };
  try {
    ip(['link', 'add', near, 'type', 'veth', 'peer', 'name', far]);
    ip(['link', 'set', far, 'netns', ns]);
    ip(['addr', 'add', `${at(1)}/30`, 'dev', near]);
    ip(['link', 'set', near, 'up']);
    ip(['netns', 'exec', ns, 'ip', 'link', 'set', far, 'up']);
  } catch (err) {
    remove();
    throw err;
  }
  return { address: at(2), remove };
}
