import type { ServerOptions, KeyRole } from './options.js';
import type { Store, Transaction } from './store/store.js';
import { createLog, type ServiceLog } from './log.js';
import { TargetPolicy, staticRules } from './net/policy.js';
import type { ServiceMetrics } from './metrics/metrics.js';

/** Work staged in the same transaction when a record of a kind is deleted (results of a check, ...). */
export type Cascade = (tx: Transaction, id: string) => void;

/** What every route module gets: the resolved options and the store. */
export interface ServerContext {
  options: ServerOptions;
  store: Store;
  /** The event log (stderr, `--log-format`). */
  log: ServiceLog;
  /** The persisted queue's deliverer (alerts/outbox.ts): `kick` after queueing, so it goes now. */
  outbox: { kick(): void };
  /** The mailer of incident mails to many subscribers (status-pages/fanout.ts): `kick` after staging a job. */
  subscriberMail: { kick(): void };
  /** The URL the service listens on, once it does (`listen`): links in mails use it without `--public-url`. */
  listenUrl?: string;
  /**
   * The network policy (`--deny-targets`) of every check run and webhook: its defaults that
   * depend on the port are added once the service listens (MacServer.listen).
   */
  policy: TargetPolicy;
  /** The operator metrics (`--metrics-port`), when served. */
  metrics?: ServiceMetrics;
  /** Now as an ISO 8601 UTC timestamp with milliseconds (the API's timestamp format). */
  isoNow(): string;
  /** Registers a cascade run inside the deleting transaction of a record of `kind`. */
  onDelete(kind: string, cascade: Cascade): void;
  /** Stages every registered cascade of deleting `kind` `id`. */
  cascadeDelete(tx: Transaction, kind: string, id: string): void;
}

/** Who is calling: the key's account and role (set by the auth guard). */
export interface Caller {
  accountId: string;
  role: KeyRole;
  key: string;
}

/** Builds the context for one running service. */
export function createContext(options: ServerOptions, store: Store): ServerContext {
  const cascades = new Map<string, Cascade[]>();
  return {
    options,
    store,
    log: options.log ?? createLog(options.logFormat, undefined, options.now),
    // Replaced by the service's deliverer (server.ts); a context without one queues only.
    outbox: { kick() {} },
    subscriberMail: { kick() {} },
    policy: new TargetPolicy(staticRules(options.denyTargets)),
    isoNow: () => new Date(options.now()).toISOString(),
    onDelete(kind, cascade) {
      cascades.set(kind, [...(cascades.get(kind) ?? []), cascade]);
    },
    cascadeDelete(tx, kind, id) {
      for (const cascade of cascades.get(kind) ?? []) cascade(tx, id);
    },
  };
}
