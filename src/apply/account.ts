import { listAll, NotFoundError, type ApiClient } from '../api/index.js';
import { findLive } from '../plan/body.js';
import { compareObjects, fingerprint, normalizeLive } from '../plan/compare.js';
import { fetchLive } from '../plan/fetch.js';
import { kindSpec } from '../plan/kinds/index.js';
import { ownershipTag } from '../plan/ownership.js';
import type { PlannedChange } from '../plan/types.js';
import { isCheckKind } from '../schema/kinds.js';
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

/** The live object a change stands for: by API id when known, else by identity (tag or natural key). */
function liveOf(project: string, change: PlannedChange, items: readonly Live[], remoteId: string | number | undefined): Live | undefined {
  const spec = kindSpec(change.kind);
  if (remoteId === undefined) return findLive(change.kind, project, change, items);
  return items.find((o) => String(spec.remoteId(o)) === String(remoteId));
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

  const ops: ResourceOps = {
    async create(change, body) {
      const ep = kindSpec(change.kind).api.create;
      const res = await client.request<Live>(ep.method, ep.path, { body, query: ep.query });
      return kindSpec(change.kind).remoteId(res.body);
    },
    async update(change, remoteId, body) {
      const ep = kindSpec(change.kind).api.update(remoteId);
      await client.request(ep.method, ep.path, { body, query: ep.query });
    },
    async remove(change, remoteId) {
      await client.delete(kindSpec(change.kind).api.item(remoteId));
    },
    async find(change) {
      const spec = kindSpec(change.kind);
      // Checks are found by their tag server-side; other kinds are few and listed whole.
      const query = isCheckKind(change.kind) ? { tag: ownershipTag(project, change.id) } : {};
      const found = findLive(change.kind, project, change, await listAll<Live>(client, spec.api.list, query));
      return found === undefined ? undefined : spec.remoteId(found);
    },
  };
  const perform = createPerform(() => ops, options.createPolicy);

  /** Re-reads objects: one list per path, then an item GET for an id the list did not show. */
  async function read(changes: ReadonlyArray<{ change: PlannedChange; remoteId?: string | number }>): Promise<Map<ChangeKey, Live | null>> {
    const lists = await fetchLive(client, changes.map((c) => c.change.kind));
    const out = new Map<ChangeKey, Live | null>();
    await Promise.all(
      changes.map(async ({ change, remoteId }) => {
        const key = changeKey(change);
        const id = remoteId ?? change.remoteId;
        const listed = liveOf(project, change, lists.get(change.kind) ?? [], id);
        if (listed !== undefined || id === undefined) return void out.set(key, listed ?? null);
        try {
          out.set(key, await client.get<Live>(kindSpec(change.kind).api.item(id)));
        } catch (err) {
          if (!(err instanceof NotFoundError)) throw err;
          out.set(key, null);
        }
      }),
    );
    return out;
  }

  return {
    readLive: (changes) => read(changes.map((change) => ({ change }))),
    fingerprint,
    perform: async (change, input) => {
      if (input.body) sent.set(changeKey(change), input.body);
      return perform(change, input);
    },
    async converge(applied) {
      const live = await read(applied.map(({ change, outcome }) => ({ change, remoteId: outcome.remoteId })));
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
        const body = sent.get(key) ?? change.desired ?? {};
        const secrets = (change.secrets ?? []).map((s) => s.path);
        for (const op of compareObjects(change.kind, body, normalizeLive(change.kind, obj), secrets).patch) {
          issues.push({ kind: change.kind, id: change.id, field: op.path, message: describeOp(op.op, op.oldValue, op.value) });
        }
      }
      return issues;
    },
    requests: () => client.stats.total,
  };
}

/** A patch operation (live -> defined) in words, values already masked by the comparison. */
function describeOp(op: string, live: unknown, defined: unknown): string {
  const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));
  if (op === 'add') return `live absent, defined ${show(defined)}`;
  if (op === 'remove') return `live ${show(live)}, defined absent`;
  return `live ${show(live)}, defined ${show(defined)}`;
}
