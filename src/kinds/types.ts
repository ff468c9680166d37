import type { Query } from '../api/client.js';
import type { Kind } from '../schema/kinds.js';
import type { Shape } from './shape.js';

/** A method and path of one write. */
export interface Endpoint {
  method: 'POST' | 'PUT';
  path: string;
  /** Query sent with the write (checks: `autoAssignAlerts=false`, api-decisions §1.8). */
  query?: Query;
}

/** Where a kind lives in the API. */
export interface KindApi {
  /** Page-based list with the full objects; check kinds share `/v1/checks`. */
  list: string;
  create: Endpoint;
  update(remoteId: string | number): Endpoint;
  /** Path of one object, for GET (re-reads) and DELETE. */
  item(remoteId: string | number): string;
  /** The list is a cursor list (`{entries, nextId}`) instead of a page-based one. */
  cursor?: boolean;
}

/** Everything mac knows about one kind, in one table; the plan and apply stages only read it. */
export interface KindSpec {
  kind: Kind;
  api: KindApi;
  /** Whether a live object of the kind's list is of this kind (check kinds share one list). */
  accepts(live: Record<string, unknown>): boolean;
  /** The API id of a live object, as used in its paths. */
  remoteId(live: Record<string, unknown>): string | number;
  /** A name for people, from a normalized object. */
  displayName(obj: Record<string, unknown>): string | undefined;
  /** The normalized form of an object: server defaults, nulls, sets; fields outside it are server-owned or unknown. */
  shapeOf(obj: Record<string, unknown>): Shape;
  /** How a non-check resource is matched: a natural key of the normalized object (undefined = cannot match). */
  naturalKey?(obj: Record<string, unknown>): string | undefined;
  /** Words for the natural key in messages (`name`, `customUrl`, `type + address`). */
  naturalKeyLabel?: string;
  /**
   * Fields the API never lets an update change (api-decisions §1.6): a definition matched by
   * logical id through the ownership record must agree with its live object on them, else it
   * is a new object (and the recorded one an orphan).
   */
  immutable?: string[];
  /**
   * Whether the kind's PUT merges (api-decisions §1.6): a top-level field the body omits keeps its
   * stored value. A field without a server default that a definition omits is then not managed.
   */
  updateMerges?: boolean;
  /** Top-level fields the API accepts but never returns: sent, never compared (api-decisions §6). */
  writeOnly: string[];
  /** Pointers of values that cannot be read back (secret values): never compared, never shown. */
  unreadableSecrets(obj: Record<string, unknown>): string[];
  /** Pointers of values that read back but must not be shown (credentials in configs): compared, masked. */
  sensitive(obj: Record<string, unknown>): string[];
  /** Fields a definition may hold that mac deliberately neither sends nor compares, with the reason. */
  ignored?: Record<string, string>;
  /** Remarks attached to every create/update of the kind (write-only fields, ...). */
  notes(obj: Record<string, unknown>): string[];
}
