import { BadResponseError, NotFoundError, objectBody, type ApiClient } from '../api/index.js';
import { listLive } from '../plan/fetch.js';
import { findLive } from '../plan/body.js';
import { compareObjects, fingerprint, normalizeLive } from '../plan/compare.js';
import { kindSpec } from '../kinds/index.js';
import { ownershipTag } from '../plan/ownership.js';
import type { PlannedChange } from '../plan/types.js';
import { fetchOwnership, writeOwnership } from '../plan/record.js';
import { isCheckKind, type Kind } from '../schema/kinds.js';
import type { ApplyAccount } from './apply.js';
import { changeKey, type ChangeKey } from './graph.js';
import { createPerform, type CreatePolicy, type ResourceOps } from './perform.js';
import type { ConvergenceIssue } from './result.js';

type Live = Record<string, unknown>;

/** What the API account needs: the client of the run and the project whose tags it owns. */
export interface ApiAccountOptions {
  client: ApiClient;
  project: string;
  createPolicy?: Partial<CreatePolicy>;
}

/** Listed objects of one kind, indexed by API id: a re-read of n objects stays linear, not n x n. */
interface KindItems {
  items: readonly Live[];
  byId: Map<string, Live>;
}

function indexItems(kind: Kind, items: readonly Live[]): KindItems {
  const spec = kindSpec(kind);
  return { items, byId: new Map(items.map((o) => [String(spec.remoteId(o)), o])) };
}

/** The live object a change stands for: by API id when known, else by identity (tag or natural key). */
function liveOf(project: string, change: PlannedChange, listed: KindItems, remoteId: string | number | undefined): Live | undefined {
  if (remoteId === undefined) return findLive(change.kind, project, change, listed.items);
  return listed.byId.get(String(remoteId));
}

/**
 * The ApplyAccount over the real API: list calls for re-reads (an item GET only when a listed id
 * is missing), the kind table's endpoints for writes, and the plan's normalization for the
 * fingerprints and the convergence check.
 */
export function apiAccount(options: ApiAccountOptions): ApplyAccount {
  const { client, project } = options;
  // Bodies as sent, kept in memory only (they hold secret values) for the convergence check.
  const sent = new Map<ChangeKey, Live>();
  // The object each write answered with, and (once computed) what comparing it with the body
  // sent leaves. The comparison is a pure function of (body, live object): when the re-read after
  // the run finds the object exactly as answered, its outcome is this one, computed while the
  // run waited on the API instead of after it.
  const answered = new Map<ChangeKey, { answer: Live; issues?: ConvergenceIssue[] }>();
  const remember = (change: PlannedChange, answer: unknown) => {
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return;
    const entry = { answer: answer as Live } as { answer: Live; issues?: ConvergenceIssue[] };
    answered.set(changeKey(change), entry);
    setImmediate(() => (entry.issues ??= differences(change, entry.answer))).unref();
  };
  /** What still differs between the body sent for a change and a live object of it. */
  const differences = (change: PlannedChange, obj: Live): ConvergenceIssue[] => {
    const body = sent.get(changeKey(change)) ?? change.desired ?? {};
    const secrets = (change.secrets ?? []).map((s) => s.path);
    return compareObjects(change.kind, body, normalizeLive(change.kind, obj), secrets).patch.map((op) => ({
      kind: change.kind,
      id: change.id,
      field: op.path,
      message: describeOp(op.op, op.oldValue, op.value),
    }));
  };

  const ops: ResourceOps = {
    async create(change, body) {
      const ep = kindSpec(change.kind).api.create;
      const res = await client.request<unknown>(ep.method, ep.path, { body, query: ep.query });
      const obj = objectBody(res, ep.method);
      const id = kindSpec(change.kind).remoteId(obj);
      if (typeof id !== 'string' && typeof id !== 'number') {
        throw new BadResponseError('the answer to the create holds no id of the new object', { method: ep.method, url: res.url, status: res.status });
      }
      remember(change, obj);
      return id;
    },
    async update(change, remoteId, body) {
      const ep = kindSpec(change.kind).api.update(remoteId);
      remember(change, (await client.request(ep.method, ep.path, { body, query: ep.query })).body);
    },
    async remove(change, remoteId) {
      await client.delete(kindSpec(change.kind).api.item(remoteId));
    },
    async find(change) {
      const spec = kindSpec(change.kind);
      // Checks are found by their tag server-side; other kinds are few and listed whole.
      const query = isCheckKind(change.kind) ? { tag: ownershipTag(project, change.id) } : {};
      const found = findLive(change.kind, project, change, await listLive(client, spec.api, query, { idOf: spec.remoteId }));
      return found === undefined ? undefined : spec.remoteId(found);
    },
  };
  const perform = createPerform(() => ops, options.createPolicy);

  /**
   * One list per distinct endpoint, indexed per kind. Objects known to exist (`expected`) tell
   * how many pages to ask for at once, so a re-read of many objects costs one round trip.
   */
  async function readLists(changes: ReadonlyArray<{ change: PlannedChange; expected: boolean }>): Promise<Map<Kind, KindItems>> {
    const atLeast = new Map<string, number>();
    const idOfList = new Map<string, (item: Live) => unknown>();
    for (const { change, expected } of changes) {
      const list = kindSpec(change.kind).api.list;
      atLeast.set(list, (atLeast.get(list) ?? 0) + (expected ? 1 : 0));
      idOfList.set(list, kindSpec(change.kind).remoteId);
    }
    const apiOf = new Map(changes.map(({ change }) => [kindSpec(change.kind).api.list, kindSpec(change.kind).api]));
    const lists = new Map(
      await Promise.all([...atLeast].map(async ([list, n]) => [list, await listLive(client, apiOf.get(list)!, {}, { atLeast: n, idOf: idOfList.get(list) })] as const)),
    );
    const out = new Map<Kind, KindItems>();
    for (const kind of new Set(changes.map((c) => c.change.kind))) {
      const spec = kindSpec(kind);
      out.set(kind, indexItems(kind, lists.get(spec.api.list)!.filter((item) => spec.accepts(item))));
    }
    return out;
  }

  /** Re-reads objects: one list per path, then an item GET for an id the list did not show. */
  async function read(changes: ReadonlyArray<{ change: PlannedChange; remoteId?: string | number; expected: boolean }>): Promise<Map<ChangeKey, Live | null>> {
    const indexed = await readLists(changes);
    const none: KindItems = { items: [], byId: new Map() };
    const out = new Map<ChangeKey, Live | null>();
    await Promise.all(
      changes.map(async ({ change, remoteId }) => {
        const key = changeKey(change);
        const id = remoteId ?? change.remoteId;
        const listed = liveOf(project, change, indexed.get(change.kind) ?? none, id);
        if (listed !== undefined || id === undefined) return void out.set(key, listed ?? null);
        try {
          out.set(key, objectBody(await client.request('GET', kindSpec(change.kind).api.item(id)), 'GET'));
        } catch (err) {
          if (!(err instanceof NotFoundError)) throw err;
          out.set(key, null);
        }
      }),
    );
    return out;
  }

  return {
    // The plan saw every object with an id; a create's object is expected to be absent.
    readLive: (changes) => read(changes.map((change) => ({ change, expected: change.remoteId !== undefined }))),
    fingerprint,
    perform: async (change, input) => {
      const key = changeKey(change);
      if (input.body) sent.set(key, input.body);
      // An answer from an earlier attempt of this change is no longer the object's state.
      answered.delete(key);
      return perform(change, input);
    },
    async converge(applied) {
      const live = await read(applied.map(({ change, outcome }) => ({ change, remoteId: outcome.remoteId, expected: change.action !== 'delete' })));
      const issues: ConvergenceIssue[] = [];
      for (const { change } of applied) {
        const key = changeKey(change);
        const obj = live.get(key) ?? null;
        if (change.action === 'delete') {
          if (obj !== null) issues.push({ kind: change.kind, id: change.id, field: '', message: 'still exists after its delete' });
          continue;
        }
        if (obj === null) {
          issues.push({ kind: change.kind, id: change.id, field: '', message: `not found after its ${change.action}` });
          continue;
        }
        const memo = answered.get(key);
        if (memo !== undefined && sameJson(memo.answer, obj)) issues.push(...(memo.issues ??= differences(change, memo.answer)));
        else issues.push(...differences(change, obj));
      }
      return issues;
    },
    requests: () => client.stats.total,
    readOwnership: () => fetchOwnership(client, project),
    recordOwnership: (outcomes) => writeOwnership(client, project, outcomes),
  };
}

/** Whether two parsed JSON values are equal (object keys in any order). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** A patch operation (live -> defined) in words, values already masked by the comparison. */
function describeOp(op: string, live: unknown, defined: unknown): string {
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));
  if (op === 'add') return `live absent, defined ${show(defined)}`;
  if (op === 'remove') return `live ${show(live)}, defined absent`;
  return `live ${show(live)}, defined ${show(defined)}`;
}
