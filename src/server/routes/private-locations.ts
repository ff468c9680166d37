import { z } from 'zod';
import { LOCATIONS, PRIVATE_LOCATION_SLUG } from '../../schema/fields.js';
import { created, noContent, ok, route, type RouteModule } from '../http/route.js';
import { contentRange } from '../http/lists.js';
import { mustGet } from '../http/lookup.js';
import { createRecord, deleteRecord, updateRecord } from '../http/write.js';
import { conflict, invalid, notFound } from '../http/errors.js';
import { COLL } from '../kinds.js';
import type { StoredRecord } from '../store/store.js';
import { hashKey, newKey, withRawKey, type StoredKey } from '../resources/keys.js';
import type { ServerContext } from '../context.js';
import { runsOf } from '../runs/runs.js';
import { AGENT_COLL } from '../rundata/collections.js';
import { CONNECTED_MS, SAMPLE_MS } from '../agents/queue.js';

// Private locations (api-decisions §3.6): slugName immutable, unique per account, never a public location.
const fields = {
  name: z.string().min(1).max(255),
  icon: z.string().min(1).optional(),
  proxyUrl: z.url().nullable().optional(),
};
const createBody = z.object({
  ...fields,
  slugName: z
    .string()
    .regex(PRIVATE_LOCATION_SLUG, 'must be 1..30 of [a-zA-Z0-9-]')
    .refine((s) => !(LOCATIONS as readonly string[]).includes(s), 'must not be the name of a public location'),
});
const updateBody = z.object({ ...fields, slugName: z.string().optional() });
const idParams = z.object({ id: z.string() });
const keyParams = z.object({ id: z.string(), keyId: z.string() });

type Location = StoredRecord & { id: string; slugName: string; keys: Array<StoredKey & { keyHash?: string }> };

/** A new key with its sha256 kept (what an agent's key is checked against; never shown). */
function locationKey(now: string): { stored: StoredKey & { keyHash: string }; rawKey: string } {
  const key = newKey('pl_', now);
  return { stored: { ...key.stored, keyHash: hashKey(key.rawKey) }, rawKey: key.rawKey };
}

/** A key as shown: without its hash. */
function keyView(k: StoredKey & { keyHash?: string }): StoredKey {
  const { keyHash: _h, ...shown } = k;
  return shown;
}

/**
 * A private location as shown: its keys masked, and what its agents do now (the reference's
 * lastSeen, agentCount, minAgentVersion and runningAgents, and each agent remembered).
 */
function locationView(ctx: ServerContext, account: string, location: Location): Record<string, unknown> {
  const now = ctx.options.now();
  const { agents } = runsOf(ctx);
  const all = agents.agents(account, location.id);
  const connected = all.filter((a) => now - Date.parse(a.lastContact) <= CONNECTED_MS);
  const versions = new Map<string, typeof connected>();
  for (const a of connected) versions.set(a.version, [...(versions.get(a.version) ?? []), a]);
  const sorted = [...versions.keys()].sort(compareVersions);
  const newest = sorted[sorted.length - 1];
  return {
    ...location,
    keys: location.keys.map(keyView),
    lastSeen: all[0]?.lastContact ?? null,
    agentCount: connected.length,
    minAgentVersion: sorted[0] ?? null,
    runningAgents: sorted.map((version) => ({ version, isOutdated: version !== newest, count: versions.get(version)!.length, agents: versions.get(version)!.map((a) => a.id) })),
    agents: all.map((a) => ({ id: a.id, version: a.version, hostName: a.hostName, firstContact: a.firstContact, lastContact: a.lastContact, connected: now - Date.parse(a.lastContact) <= CONNECTED_MS })),
  };
}

/** Orders dotted versions numerically (1.10.0 after 1.9.2); other text after, by text. */
function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? -1;
    const y = pb[i] ?? -1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

const metricsQuery = z.object({ from: z.string().min(1), to: z.string().min(1) });
/** The reference bounds `from` to the last 15 days. */
const METRICS_DAYS = 15;

/** A `from`/`to` of the metrics: UNIX seconds (the reference), or an ISO 8601 time. */
function metricsTime(name: string, value: string): number {
  const ms = /^\d{1,12}$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  if (!Number.isFinite(ms)) throw invalid('query', name, 'must be a UNIX timestamp (seconds) or an ISO 8601 time');
  return ms;
}

/** Routes of `/v1/private-locations` and their keys (endpoint 18). */
export const privateLocationRoutes: RouteModule = (ctx) => {
  const { store, isoNow } = ctx;
  return [
  route({
    method: 'GET',
    path: '/v1/private-locations',
    handle: ({ account }) => {
      const all = store.list<Location>(account, COLL.privateLocations).map((l) => locationView(ctx, account, l));
      return ok(all, { 'content-range': contentRange(0, all.length, all.length) });
    },
  }),
  route({
    method: 'POST',
    path: '/v1/private-locations',
    body: createBody,
    handle: ({ account, body }) => {
      const now = isoNow();
      const key = locationKey(now);
      return createRecord(
        store,
        account,
        COLL.privateLocations,
        (tx) => {
          if (tx.list<Location>(COLL.privateLocations).some((p) => p.slugName === body.slugName)) {
            throw conflict(`Private location "${body.slugName}" already exists`);
          }
          return {
            id: tx.uuid(),
            name: body.name,
            slugName: body.slugName,
            icon: body.icon ?? 'location',
            proxyUrl: body.proxyUrl ?? null,
            keys: [key.stored],
            created_at: now,
            updated_at: null,
          };
        },
        (location) => ({ ...locationView(ctx, account, location), keys: [withRawKey(key.stored, key.rawKey)] }),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/v1/private-locations/:id',
    params: idParams,
    handle: ({ account, params }) => ok(locationView(ctx, account, mustGet<Location>(store.view(account), COLL.privateLocations, params.id))),
  }),
  // The reference's health metrics over a window: one point per minute sampled, oldest first.
  route({
    method: 'GET',
    path: '/v1/private-locations/:id/metrics',
    params: idParams,
    query: metricsQuery,
    handle: ({ account, params, query }) => {
      const location = mustGet<Location>(store.view(account), COLL.privateLocations, params.id);
      const now = ctx.options.now();
      const fromMs = metricsTime('from', query.from);
      const toMs = metricsTime('to', query.to);
      if (fromMs < now - METRICS_DAYS * 86_400_000) throw invalid('query', 'from', `must be less than ${METRICS_DAYS} days ago`);
      if (toMs < fromMs) throw invalid('query', 'to', 'must not be before from');
      // One sample per instance and minute: waiting runs and agents are read from the one
      // database (the largest reading counts), runs done add up over the instances.
      const points = new Map<number, { queueSize: number; oldestMs: number; agents: number; runs: number; notRun: number }>();
      const samples = store.query<{ at: string; queueSize: number; oldestMs: number; agents: number; runs: number; notRun: number }>(account, AGENT_COLL.samples, {
        checkId: location.id,
        fromMs,
        toMs,
        limit: 50_000,
      });
      for (const s of samples) {
        const at = Date.parse(s.at);
        const p = points.get(at) ?? { queueSize: 0, oldestMs: 0, agents: 0, runs: 0, notRun: 0 };
        points.set(at, { queueSize: Math.max(p.queueSize, s.queueSize), oldestMs: Math.max(p.oldestMs, s.oldestMs), agents: Math.max(p.agents, s.agents), runs: p.runs + s.runs, notRun: p.notRun + s.notRun });
      }
      const times = [...points.keys()].sort((a, b) => a - b);
      const perMinute = 60_000 / SAMPLE_MS;
      return ok({
        timestamps: times.map((t) => new Date(t).toISOString()),
        queueSize: times.map((t) => points.get(t)!.queueSize),
        oldestScheduledCheckRun: times.map((t) => Math.round(points.get(t)!.oldestMs / 1000)),
        agentsConnected: times.map((t) => points.get(t)!.agents),
        runsPerMinute: times.map((t) => points.get(t)!.runs * perMinute),
        notRunPerMinute: times.map((t) => points.get(t)!.notRun * perMinute),
      });
    },
  }),
  route({
    method: 'PUT',
    path: '/v1/private-locations/:id',
    params: idParams,
    body: updateBody,
    handle: ({ account, params, body }) =>
      updateRecord<Location>(
        store,
        account,
        COLL.privateLocations,
        params.id,
        (stored) => {
          if (body.slugName !== undefined && body.slugName !== stored.slugName) throw invalid('payload', 'slugName', `cannot change; must be "${stored.slugName}"`);
          return { ...stored, name: body.name, icon: body.icon ?? 'location', proxyUrl: body.proxyUrl ?? null, updated_at: isoNow() };
        },
        (location) => locationView(ctx, account, location),
      ),
  }),
  route({
    method: 'DELETE',
    path: '/v1/private-locations/:id',
    params: idParams,
    handle: ({ account, params }) => {
      const reply = deleteRecord<Location>(store, account, COLL.privateLocations, params.id, (tx, stored) => {
        const users = tx.list(COLL.checks).filter((c) => (c.privateLocations as string[]).includes(stored.slugName));
        if (users.length > 0) throw conflict(`Private location "${stored.slugName}" is used by ${users.length} check${users.length === 1 ? '' : 's'}`);
      });
      runsOf(ctx).agents.forget(account, params.id);
      return reply;
    },
  }),
  // Endpoint 18: 201 with the new key; its rawKey is shown in this response only.
  route({
    method: 'POST',
    path: '/v1/private-locations/:id/keys',
    params: idParams,
    handle: ({ account, params }) => {
      const key = locationKey(isoNow());
      updateRecord<Location>(store, account, COLL.privateLocations, params.id, (stored) => ({ ...stored, keys: [...stored.keys, key.stored] }));
      return created(withRawKey(key.stored, key.rawKey));
    },
  }),
  route({
    method: 'DELETE',
    path: '/v1/private-locations/:id/keys/:keyId',
    params: keyParams,
    handle: ({ account, params }) => {
      updateRecord<Location>(store, account, COLL.privateLocations, params.id, (stored) => {
        if (!stored.keys.some((k) => k.id === params.keyId)) throw notFound();
        return { ...stored, keys: stored.keys.filter((k) => k.id !== params.keyId) };
      });
      return noContent();
    },
  }),
  ];
};
