import pLimit from 'p-limit';
import type { ApiClient } from '../api/index.js';
import { listLive } from '../plan/fetch.js';
import { KIND_SPECS } from '../kinds/index.js';
import { normalizeShape } from '../kinds/shape.js';
import { CHECK_KINDS, type Kind } from '../schema/kinds.js';

/** One live resource, as listed and as the plan normalizes it. */
export interface LiveItem {
  kind: Kind;
  remoteId: string | number;
  /** The object as the API listed it. */
  raw: Record<string, unknown>;
  /** The normalized body (server defaults applied, server-owned fields dropped). */
  body: Record<string, unknown>;
}

/** A live check of a type mac has no definition kind for (API, browser, URL, ...). */
export interface UnsupportedCheck {
  id: string;
  name: string;
  checkType: string;
}

/** What the account holds of the selected kinds, each kind in creation order. */
export interface LiveAccount {
  items: Map<Kind, LiveItem[]>;
  unsupported: UnsupportedCheck[];
}

/** Options of the fetch stage. */
export interface FetchOptions {
  /** Lists fetched at once (each list pages concurrently through the shared client). */
  concurrency: number;
  onProgress?(text: string): void;
}

/**
 * Lists every selected kind through the shared client (rate limit and retries included). Kinds
 * that share a list (the check kinds, `/v1/checks`) cost one list; no per-item GET is made,
 * since lists carry full objects.
 */
export async function fetchLive(client: ApiClient, kinds: Kind[], options: FetchOptions): Promise<LiveAccount> {
  const byPath = new Map<string, Kind[]>();
  for (const kind of kinds) {
    const path = KIND_SPECS[kind].api.list;
    byPath.set(path, [...(byPath.get(path) ?? []), kind]);
  }
  const account: LiveAccount = { items: new Map(kinds.map((k) => [k, []])), unsupported: [] };
  const limit = pLimit(Math.max(1, options.concurrency));
  await Promise.all(
    [...byPath].map(([path, pathKinds]) =>
      limit(async () => {
        const raw = inCreationOrder(await listLive(client, KIND_SPECS[pathKinds[0]!].api, {}, { idOf: KIND_SPECS[pathKinds[0]!].remoteId }));
        for (const obj of raw) {
          const kind = pathKinds.find((k) => KIND_SPECS[k].accepts(obj));
          if (kind === undefined) {
            if (path === KIND_SPECS.TcpCheck.api.list && !isKnownCheck(obj)) {
              account.unsupported.push({ id: String(obj.id), name: String(obj.name ?? ''), checkType: String(obj.checkType) });
            }
            continue;
          }
          const spec = KIND_SPECS[kind];
          account.items.get(kind)!.push({ kind, remoteId: spec.remoteId(obj), raw: obj, body: normalizeShape(obj, spec.shapeOf(obj)).value });
        }
        options.onProgress?.(`read ${raw.length} from ${path}`);
      }),
    ),
  );
  return account;
}

function isKnownCheck(obj: Record<string, unknown>): boolean {
  return CHECK_KINDS.some((k) => KIND_SPECS[k].accepts(obj));
}

/**
 * Lists come oldest first (api-decisions §1.4); sorting by `created_at` (stable, so equal times
 * keep the list's order) makes the ids derived from them independent of any other order.
 */
function inCreationOrder(items: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const at = (o: Record<string, unknown>) => (typeof o.created_at === 'string' ? o.created_at : '');
  return [...items].sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0));
}
