import dns from 'node:dns';
import net from 'node:net';

/**
 * What the runner asks before it connects anywhere: the service passes its network policy
 * (`mac serve --deny-targets`, src/server/net/policy.ts); `mac test` passes none, since it runs
 * on the user's own machine. Asked with the address a name resolved to, on every connection
 * (every redirect hop of an HTTP check), so a name, a numeric form or a redirect cannot reach
 * what the address itself may not.
 */
export interface TargetGuard {
  /** Why a connection to `ip`:`port` is refused (the run's error), or null when it may go. */
  refuses(ip: string, port: number): string | null;
}

/** The error of a refused target: not a network fault (retrying cannot help), code EPOLICY. */
export class TargetRefused extends Error {
  readonly code = 'EPOLICY';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
/** The shape of `dns.lookup` that `net.connect({ lookup })` calls. */
export type LookupFunction = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

/**
 * `dns.lookup` that refuses a name when any address it resolves to is refused for `port`
 * (rather than picking another: a name that points at a refused address is not a target to try
 * around). For `net.connect({ lookup })`, which skips the lookup of an address literal: check
 * those with `guard.refuses` before connecting.
 */
export function guardedLookup(guard: TargetGuard, port: number, base: LookupFunction = dns.lookup as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const all = Array.isArray(address) ? address : [{ address, family: family ?? net.isIP(address) }];
      for (const a of all) {
        const reason = guard.refuses(a.address, port);
        if (reason) return callback(new TargetRefused(reason), address, family);
      }
      callback(null, address, family);
    });
  };
}
