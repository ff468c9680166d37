import type { ApiClient } from '../api/client.js';
import { ConflictError, NotFoundError, outcomeUnknown } from '../api/errors.js';
import { listAll } from '../api/paginate.js';
import { isOwnedKind, KINDS, type Kind } from '../schema/kinds.js';
import { OWNED_VARIABLE_PREFIX, ownedVariableKey } from '../schema/lock-key.js';
import { isRecord } from '../json/values.js';

/**
 * Ownership records. Checks and check groups carry their owner in a tag (`mac:<project>/<id>`);
 * the other kinds have no field mac could mark without changing what the user wrote or what the
 * service does with it. Their ownership lives in one account variable per project,
 * `MAC_OWNED_<PROJECT>`, whose value lists the API id of every object the project manages, by
 * kind and logical id. A plan reads every project's record (one list of /v1/variables); an apply
 * of the project rewrites its own under the apply lock.
 *
 * What a record gives: identity by logical id (a definition whose display name, URL or address
 * changed is still the same live object), orphans and `--prune` for every kind, everything of
 * the project for `mac destroy`, and a refusal to touch what another project records.
 */

/** The kinds whose ownership is recorded (every kind that carries no ownership tag). */
export const RECORDED_KINDS: readonly Kind[] = KINDS.filter((k) => !isOwnedKind(k));

/** Whether a kind's ownership is recorded (not tagged). */
export function isRecordedKind(kind: Kind): boolean {
  return !isOwnedKind(kind);
}

/** Version of the record's value. */
const RECORD_VERSION = 1;
/** A record larger than this is refused as a record (treated as absent, with a warning). */
export const MAX_RECORD_CHARS = 4 * 1024 * 1024;
/** Longest logical id a record entry may hold (definitions' ids are far shorter). */
const MAX_ID_CHARS = 256;

/** One project's record: kind -> logical id -> API id (as a string). */
export type OwnedIds = Map<Kind, Map<string, string>>;

/** The records of the account, as a plan uses them. */
export interface Ownership {
  /** This project's record (empty when it has none yet). */
  own: OwnedIds;
  /** Whether this project's record exists (an apply then updates it instead of creating it). */
  exists: boolean;
  /** API ids other projects record, by kind: API id -> project. */
  foreign: Map<Kind, Map<string, string>>;
  /** Records that could not be read (malformed, oversized, or under a key that is not their project's). */
  warnings: string[];
}

/** No record anywhere (tests, imports, a first plan). */
export function noOwnership(): Ownership {
  return { own: new Map(), exists: false, foreign: new Map(), warnings: [] };
}

/** The parsed value of a record, or a reason it is not one. */
export function parseRecord(value: unknown): { project: string; ids: OwnedIds } | { error: string } {
  if (typeof value !== 'string') return { error: 'its value is not readable (secret or not text)' };
  if (value.length > MAX_RECORD_CHARS) return { error: `its value is over ${MAX_RECORD_CHARS} characters` };
  let doc: unknown;
  try {
    doc = JSON.parse(value);
  } catch {
    return { error: 'its value is not JSON' };
  }
  if (!isRecord(doc) || doc.v !== RECORD_VERSION || typeof doc.project !== 'string' || !isRecord(doc.objects)) return { error: `its value is not a version ${RECORD_VERSION} ownership record` };
  const ids: OwnedIds = new Map();
  for (const [kind, entries] of Object.entries(doc.objects)) {
    if (!(RECORDED_KINDS as readonly string[]).includes(kind) || !isRecord(entries)) return { error: `it lists an unknown kind or a malformed entry` };
    const byId = new Map<string, string>();
    for (const [id, remote] of Object.entries(entries)) {
      if (id.length === 0 || id.length > MAX_ID_CHARS || (typeof remote !== 'string' && typeof remote !== 'number') || String(remote).length > MAX_ID_CHARS) {
        return { error: `it holds a malformed entry under ${kind}` };
      }
      byId.set(id, String(remote));
    }
    if (byId.size > 0) ids.set(kind as Kind, byId);
  }
  return { project: doc.project, ids };
}

/** The value written for a record: keys sorted, so an unchanged record is written byte for byte the same. */
export function formatRecord(project: string, ids: OwnedIds): string {
  const objects: Record<string, Record<string, string>> = {};
  for (const kind of RECORDED_KINDS) {
    const byId = ids.get(kind);
    if (!byId || byId.size === 0) continue;
    objects[kind] = Object.fromEntries([...byId].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  return JSON.stringify({ v: RECORD_VERSION, project, objects });
}

/**
 * The ownership of the account as seen from `project`, from the variables listed (raw, the
 * reserved ones included). A record is only believed under its own project's key, so a record
 * copied under another key claims nothing.
 */
export function ownershipFrom(project: string, variables: readonly Record<string, unknown>[]): Ownership {
  const out = noOwnership();
  const ownKey = ownedVariableKey(project);
  for (const v of variables) {
    const key = v.key;
    if (typeof key !== 'string' || !key.startsWith(OWNED_VARIABLE_PREFIX)) continue;
    const parsed = parseRecord(v.value);
    if ('error' in parsed) {
      out.warnings.push(`the ownership record ${key} is ignored: ${parsed.error}${key === ownKey ? '; nothing of this project is reported orphaned or pruned until an apply writes it again' : ''}`);
      if (key === ownKey) out.exists = true;
      continue;
    }
    if (ownedVariableKey(parsed.project) !== key) {
      out.warnings.push(`the ownership record ${key} is ignored: it names another project`);
      continue;
    }
    if (key === ownKey) {
      out.own = parsed.ids;
      out.exists = true;
      continue;
    }
    for (const [kind, byId] of parsed.ids) {
      const foreign = out.foreign.get(kind) ?? new Map<string, string>();
      for (const remote of byId.values()) if (!foreign.has(remote)) foreign.set(remote, parsed.project);
      out.foreign.set(kind, foreign);
    }
  }
  return out;
}

/** Path of the variables list, where the records live. */
export const VARIABLES_LIST = '/v1/variables';
/** POSTs of a project's record whose outcome was unknown before an apply gives up (as for a resource's create). */
const RECORD_CREATE_ATTEMPTS = 4;

/** Every variable of the account, raw (reserved ones included): one paginated list. */
export function listVariables(client: ApiClient): Promise<Record<string, unknown>[]> {
  return listAll<Record<string, unknown>>(client, VARIABLES_LIST, {}, { idOf: (v) => v.key });
}

/** Reads every ownership record of the account (one paginated list of variables). */
export async function fetchOwnership(client: ApiClient, project: string): Promise<Ownership> {
  return ownershipFrom(project, await listVariables(client));
}

/** Copies a record (apply edits its copy). */
export function copyIds(ids: OwnedIds): OwnedIds {
  return new Map([...ids].map(([k, m]) => [k, new Map(m)]));
}

/** Whether two records hold the same entries. */
export function sameIds(a: OwnedIds, b: OwnedIds): boolean {
  return formatRecord('', a) === formatRecord('', b);
}

/** What an apply did to one change, as the record needs it. */
export interface RecordedOutcome {
  kind: Kind;
  id: string;
  action: 'create' | 'update' | 'delete' | 'noop';
  /** The API id the object has after the run (a create's new id); absent for a noop tombstone. */
  remoteId?: string | number;
  /** Whether the change was applied (noops count as applied). */
  applied: boolean;
}

/**
 * The record after an apply: a created, updated or unchanged object is recorded under its
 * change's logical id (an object first matched by natural key is adopted into the record; an
 * object recorded under another id moves to this one); a deleted object, and a tombstone already
 * gone, leave it. Failed or skipped changes change nothing, except a delete that found the object gone.
 */
export function nextOwnedIds(current: OwnedIds, outcomes: readonly RecordedOutcome[]): OwnedIds {
  const next = copyIds(current);
  for (const o of outcomes) {
    if (!isRecordedKind(o.kind) || !o.applied) continue;
    const byId = next.get(o.kind) ?? new Map<string, string>();
    next.set(o.kind, byId);
    if (o.action === 'delete' || o.remoteId === undefined) {
      if (o.remoteId === undefined) byId.delete(o.id);
      else for (const [id, remote] of [...byId]) if (remote === String(o.remoteId)) byId.delete(id);
      continue;
    }
    const remote = String(o.remoteId);
    for (const [id, r] of [...byId]) if (r === remote && id !== o.id) byId.delete(id);
    byId.set(o.id, remote);
  }
  for (const [kind, byId] of [...next]) if (byId.size === 0) next.delete(kind);
  return next;
}

/**
 * Rewrites a project's record after an apply (under the apply lock, so no other run of the
 * project writes it meanwhile): read it, fold the outcomes in, write it only when it changed
 * (an empty record is deleted: a destroyed project leaves nothing behind).
 */
export async function writeOwnership(client: ApiClient, project: string, outcomes: readonly RecordedOutcome[]): Promise<void> {
  const key = ownedVariableKey(project);
  const path = `/v1/variables/${encodeURIComponent(key)}`;
  let current: OwnedIds = new Map();
  let exists = true;
  try {
    const live = await client.get<Record<string, unknown>>(path);
    const parsed = parseRecord(live.value);
    // A record that cannot be read is rebuilt from what this run saw.
    if (!('error' in parsed) && parsed.project === project) current = parsed.ids;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    exists = false;
  }
  const next = nextOwnedIds(current, outcomes);
  if (exists && sameIds(current, next)) return;
  if (next.size === 0) {
    if (exists) await client.delete(path).catch((err: unknown) => (err instanceof NotFoundError ? undefined : Promise.reject(err)));
    return;
  }
  const value = formatRecord(project, next);
  if (exists) {
    await client.put(path, { value, locked: false, secret: false });
    return;
  }
  // The client retries no POST; a create whose outcome is unknown (a reset, a 5xx) is sent again,
  // and one that landed meanwhile answers 409, which turns into the update.
  for (let attempt = 1; ; attempt++) {
    try {
      await client.post('/v1/variables', { key, value, locked: false, secret: false });
      return;
    } catch (err) {
      if (err instanceof ConflictError) break;
      if (!outcomeUnknown(err) || attempt >= RECORD_CREATE_ATTEMPTS) throw err;
    }
  }
  await client.put(path, { value, locked: false, secret: false });
}
