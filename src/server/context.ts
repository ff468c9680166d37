import type { ServerOptions, KeyRole } from './options.js';
import type { Store } from './store/store.js';

/** What every route module gets: the resolved options and the store. */
export interface ServerContext {
  options: ServerOptions;
  store: Store;
  /** Now as an ISO 8601 UTC timestamp with milliseconds (the API's timestamp format). */
  isoNow(): string;
}

/** Who is calling: the key's account and role (set by the auth guard). */
export interface Caller {
  accountId: string;
  role: KeyRole;
  key: string;
}

/** Builds the context for one running service. */
export function createContext(options: ServerOptions, store: Store): ServerContext {
  return { options, store, isoNow: () => new Date(options.now()).toISOString() };
}
