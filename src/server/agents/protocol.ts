/**
 * The agent protocol, version 1: JSON over HTTP under `/agent/v1/`, authenticated by a
 * private-location key (`Authorization: Bearer pl_...`), and nothing else is: a private-location
 * key opens no API route, and an API key opens no agent route. docs/serve-api.md describes it.
 *
 * - POST /agent/v1/claims   long poll: the due runs of the key's location, claimed for a lease
 * - POST /agent/v1/results  the attempts of one claimed run: recorded as the location's run
 * - POST /agent/v1/releases claimed runs given back (an agent stopping)
 * - POST /agent/v1/leases   claims of runs still under way extended by a lease (long checks)
 * - POST /agent/v1/result-batches  the results of several claimed runs in one request, each
 *   recorded or refused on its own (an addition to v1: claims answers list it in `features`)
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/env.js';
import type { ServerContext } from '../context.js';
import { ApiError, invalid, notFound, unauthorized, validationError } from '../http/errors.js';
import { readStreamLimited } from '../../runner/bounded-read.js';
import { COLL } from '../kinds.js';
import { hashKey } from '../resources/keys.js';
import { runsOf } from '../runs/runs.js';
import { MAX_ASSET_BYTES, type AttemptResult } from '../../runner/index.js';
import { MAX_CLAIM_BATCH, MAX_WAIT_MS, type LocationRecord } from './queue.js';

/** The protocol version this service speaks (the path's `v1`). */
export const PROTOCOL_VERSION = 1;
/** Largest body of a claims or releases request. */
export const MAX_SMALL_BODY_BYTES = 16 * 1024;
/** Largest body of a results request: a run's attempts with their files (base64). */
export const MAX_RESULT_BODY_BYTES = 3 * MAX_ASSET_BYTES;
/** Claim requests of one location waiting at once on one instance; more answer 429. */
export const MAX_WAITING_PER_LOCATION = 64;
/**
 * How often a waiting claim looks at the database without being woken: runs queued or released on
 * this instance wake it at once; this bounds how late it sees runs queued by other instances on
 * one database, and claims whose lease ended.
 */
export const LOOK_AGAIN_MS = 2_000;
/** Additions to protocol v1 this service serves, named in every claims answer. */
export const PROTOCOL_FEATURES = ['result-batches'] as const;
/** Results one result batch carries at most (its bytes are bounded as one result's body). */
export const MAX_RESULT_BATCH = 50;
/** Attempts of one run a result may carry (the first and at most 10 retries). */
const MAX_ATTEMPTS = 11;
/** Largest result object of one attempt (apiCheckResult, browserCheckResult or multiStepCheckResult) as JSON. */
export const MAX_RESULT_OBJECT_BYTES = 1024 * 1024;
/**
 * How far an attempt's times may lie outside its claim (from the run's due time, before which no
 * agent can claim it, to now): the agent's clock may differ from the service's by this much.
 */
export const CLOCK_SKEW_MS = 120_000;

const KEY_FORMAT = /^pl_[0-9a-f]{32}$/;

/** Who is calling: the key's location. */
interface AgentCaller {
  account: string;
  locationId: string;
  slug: string;
}

const agentInfo = z.object({
  id: z.string().regex(/^[A-Za-z0-9-]{8,64}$/, 'must be 8..64 of [A-Za-z0-9-]'),
  version: z.string().min(1).max(40),
  hostName: z.string().min(1).max(255),
});
const claimsBody = z.object({
  agent: agentInfo,
  max: z.number().int().min(1).max(MAX_CLAIM_BATCH),
  waitSeconds: z
    .number()
    .min(0)
    .max(MAX_WAIT_MS / 1000),
});
const runRef = z.object({ runId: z.string().min(1).max(200), token: z.string().min(1).max(100) });
const releasesBody = z.object({ runs: z.array(runRef).max(MAX_CLAIM_BATCH) });
const leasesBody = z.object({ agentId: agentInfo.shape.id, runs: z.array(runRef).min(1).max(MAX_CLAIM_BATCH) });
const time = z.iso.datetime({ offset: true });
const anyObject = z.record(z.string(), z.unknown()).nullable();
const asset = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  type: z.enum(['screenshot', 'trace']),
  contentType: z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/),
  data: z.base64().max(Math.ceil((MAX_ASSET_BYTES * 4) / 3) + 4),
});
const attempt = z.strictObject({
  resultType: z.enum(['FINAL', 'ATTEMPT']),
  attempts: z.number().int().min(0).max(MAX_ATTEMPTS),
  hasFailures: z.boolean(),
  hasErrors: z.boolean(),
  isDegraded: z.boolean().nullable(),
  overMaxResponseTime: z.boolean().nullable(),
  responseTime: z.number().min(0).max(3_600_000),
  startedAt: time,
  stoppedAt: time,
  apiCheckResult: anyObject,
  browserCheckResult: anyObject,
  multiStepCheckResult: anyObject,
  errorMessage: z.string().max(10_000).nullable(),
  networkError: z.boolean(),
  assets: z.array(asset).max(4).optional(),
});
const resultsBody = z.strictObject({ ...runRef.shape, agentId: agentInfo.shape.id, attempts: z.array(attempt).min(1).max(MAX_ATTEMPTS) });
const batchItem = z.strictObject({ ...runRef.shape, attempts: z.array(attempt).min(1).max(MAX_ATTEMPTS) });
const batchBody = z.strictObject({ agentId: agentInfo.shape.id, results: z.array(z.unknown()).min(1).max(MAX_RESULT_BATCH) });

/** What became of one result: recorded (200), refused as invalid (400) or because its claim no longer holds (409). */
interface ResultOutcome {
  status: 200 | 400 | 409;
  recorded?: boolean;
  checkSessionId?: string;
  message?: string;
  errors?: Array<{ path: string; message: string }>;
}

/**
 * Private-location keys by their sha256: rebuilt when private locations change (on any instance).
 * The raw key is never stored; a presented key is hashed and compared in constant time.
 */
class KeyIndex {
  private version = -1;
  private byHash = new Map<string, AgentCaller & { hash: Buffer; maskedKey: string }>();
  constructor(private readonly ctx: ServerContext) {}

  find(raw: string): AgentCaller | undefined {
    const version = this.ctx.store.version(COLL.privateLocations);
    if (version !== this.version) {
      const next = new Map<string, AgentCaller & { hash: Buffer; maskedKey: string }>();
      for (const { account, record } of this.ctx.store.everywhere<LocationRecord>(COLL.privateLocations)) {
        for (const k of record.keys ?? []) {
          if (typeof k.keyHash === 'string' && /^[0-9a-f]{64}$/.test(k.keyHash)) {
            next.set(k.keyHash, { account, locationId: record.id, slug: record.slugName, hash: Buffer.from(k.keyHash, 'hex'), maskedKey: k.maskedKey });
          }
        }
      }
      this.byHash = next;
      this.version = version;
    }
    const hash = hashKey(raw);
    const found = this.byHash.get(hash);
    if (!found || !timingSafeEqual(found.hash, Buffer.from(hash, 'hex'))) return undefined;
    return { account: found.account, locationId: found.locationId, slug: found.slug };
  }
}

/** The agent routes, before the API's authentication: they answer every path under `/agent/`. */
export function agentProtocol(ctx: ServerContext): MiddlewareHandler<AppEnv> {
  const keys = new KeyIndex(ctx);
  const waiting = new Map<string, number>();
  return async (c, next) => {
    const path = c.req.path;
    if (!path.startsWith('/agent/')) return next();
    const m = /^\/agent\/v(\d+)\/(claims|results|result-batches|releases|leases)$/.exec(path);
    if (!m || c.req.method !== 'POST') throw notFound();
    if (Number(m[1]) !== PROTOCOL_VERSION) throw new ApiError(404, `agent protocol version ${m[1].slice(0, 6)} is not supported; this service speaks version ${PROTOCOL_VERSION}`);
    const header = /^Bearer (\S+)$/i.exec((c.req.header('authorization') ?? '').trim());
    const raw = header?.[1];
    const caller = raw && KEY_FORMAT.test(raw) ? keys.find(raw) : undefined;
    if (!caller) throw unauthorized('Unknown private-location key');
    const { agents } = runsOf(ctx);
    if (m[2] === 'claims') {
      const body = parse(claimsBody, await readBody(c, MAX_SMALL_BODY_BYTES));
      agents.seen(caller.account, caller.locationId, body.agent);
      const held = waiting.get(caller.locationId) ?? 0;
      if (held >= MAX_WAITING_PER_LOCATION) throw new ApiError(429, `Too many agents waiting for private location "${caller.slug}" on this instance`, undefined, { 'retry-after': '5' });
      waiting.set(caller.locationId, held + 1);
      try {
        const claimed = await waitForWork(ctx, caller, body, c.req.raw.signal);
        // The agent went away while waiting (it stops): what was just claimed goes back at once.
        if (c.req.raw.signal.aborted && claimed.length > 0) {
          agents.release(caller.account, caller.locationId, claimed.map(({ run, token }) => ({ runId: run.id, token })));
          return c.json({ protocol: PROTOCOL_VERSION, location: caller.slug, runs: [] });
        }
        return c.json({
          protocol: PROTOCOL_VERSION,
          location: caller.slug,
          features: PROTOCOL_FEATURES,
          leaseSeconds: agents.times.leaseMs / 1000,
          timeScale: ctx.options.timeScale,
          runs: claimed.map(({ run, check, leaseUntilMs, token }) => ({
            runId: run.id,
            token,
            dueAt: run.dueAt,
            leaseUntil: new Date(leaseUntilMs).toISOString(),
            check: runnable(ctx, caller.account, run.location, check),
          })),
        });
      } finally {
        const left = (waiting.get(caller.locationId) ?? 1) - 1;
        if (left > 0) waiting.set(caller.locationId, left);
        else waiting.delete(caller.locationId);
      }
    }
    if (m[2] === 'releases') {
      const body = parse(releasesBody, await readBody(c, MAX_SMALL_BODY_BYTES));
      return c.json({ released: agents.release(caller.account, caller.locationId, body.runs) });
    }
    if (m[2] === 'leases') {
      const body = parse(leasesBody, await readBody(c, MAX_SMALL_BODY_BYTES));
      const extended = agents.extend(caller.account, caller.locationId, body.agentId, body.runs);
      return c.json({ leaseSeconds: agents.times.leaseMs / 1000, runs: extended.map((x) => ({ runId: x.runId, token: x.token, leaseUntil: new Date(x.leaseUntilMs).toISOString() })) });
    }
    if (m[2] === 'result-batches') {
      const body = parse(batchBody, await readBody(c, MAX_RESULT_BODY_BYTES));
      const results: Array<{ runId: string | null } & ResultOutcome> = [];
      // One after the other: each is recorded (or refused) on its own, as if posted alone.
      for (const [i, item] of body.results.entries()) {
        const r = batchItem.safeParse(item);
        const runId = typeof (item as { runId?: unknown } | null)?.runId === 'string' ? ((item as { runId: string }).runId.slice(0, 200)) : null;
        if (!r.success) {
          results.push({ runId, status: 400, message: `results.${i} is not valid`, errors: r.error.issues.slice(0, 20).map((x) => ({ path: x.path.join('.'), message: x.message })) });
          continue;
        }
        results.push({ runId, ...(await recordResult(ctx, caller, body.agentId, r.data)) });
      }
      return c.json({ results });
    }
    const body = parse(resultsBody, await readBody(c, MAX_RESULT_BODY_BYTES));
    const outcome = await recordResult(ctx, caller, body.agentId, body);
    if (outcome.status === 409) throw new ApiError(409, outcome.message!);
    if (outcome.status === 400) throw validationError('payload', outcome.errors!);
    return c.json({ recorded: outcome.recorded, ...(outcome.checkSessionId ? { checkSessionId: outcome.checkSessionId } : {}) });
  };
}

/** Records one run's result if its claim (token, agent) still holds it with enough lease left and its attempts pass attemptProblems. */
async function recordResult(ctx: ServerContext, caller: AgentCaller, agentId: string, body: z.infer<typeof batchItem>): Promise<ResultOutcome> {
  const { agents } = runsOf(ctx);
  const held = agents.holder(caller.account, caller.locationId, body.runId, body.token, agentId);
  if ('refused' in held) {
    return { status: 409, message: held.refused === 'late' ? 'The claim of this run ends too soon to record its result: another agent may run it' : 'This run is not claimed by this agent with this token (its lease ended and another agent took it, or it was recorded already)' };
  }
  const problems = attemptProblems(body.attempts, Date.parse(held.run.dueAt), ctx.options.now());
  if (problems.length > 0) return { status: 400, message: 'The result is not valid', errors: problems.slice(0, 20) };
  const attempts: AttemptResult[] = body.attempts.map(({ assets, ...a }) => ({
    ...(a as Omit<AttemptResult, 'assets'>),
    ...(assets && assets.length > 0 ? { assets: assets.map((x) => ({ name: x.name, type: x.type, contentType: x.contentType, data: Buffer.from(x.data, 'base64') })) } : {}),
  }));
  const recorded = await agents.complete(caller.account, held.run, agentId, attempts);
  return { status: 200, recorded: recorded !== undefined, ...(recorded ? { checkSessionId: recorded.checkSessionId } : {}) };
}

/**
 * What the schema cannot say of a run's attempts: only the last is FINAL, their numbers count up
 * from 0, each starts before it stops and within the claim (from the run's due time to now, give
 * or take CLOCK_SKEW_MS), one after the other, and each result object is at most
 * MAX_RESULT_OBJECT_BYTES as JSON.
 */
export function attemptProblems(attempts: z.infer<typeof attempt>[], dueMs: number, nowMs: number): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  const from = dueMs - CLOCK_SKEW_MS;
  const to = nowMs + CLOCK_SKEW_MS;
  let previousStop = -Infinity;
  attempts.forEach((a, i) => {
    const at = `attempts.${i}`;
    const last = i === attempts.length - 1;
    if (last !== (a.resultType === 'FINAL')) out.push({ path: `${at}.resultType`, message: last ? 'the last attempt must be FINAL' : 'only the last attempt may be FINAL' });
    if (a.attempts !== i) out.push({ path: `${at}.attempts`, message: `must be ${i} (the attempts count up from 0)` });
    const started = Date.parse(a.startedAt);
    const stopped = Date.parse(a.stoppedAt);
    if (started < from || started > to) out.push({ path: `${at}.startedAt`, message: 'must lie between the run\'s due time and now' });
    if (stopped < from || stopped > to) out.push({ path: `${at}.stoppedAt`, message: 'must lie between the run\'s due time and now' });
    if (stopped < started) out.push({ path: `${at}.stoppedAt`, message: 'must not be before startedAt' });
    if (started < previousStop - CLOCK_SKEW_MS) out.push({ path: `${at}.startedAt`, message: 'must not be before the previous attempt stopped' });
    previousStop = Math.max(previousStop, stopped);
    for (const field of ['apiCheckResult', 'browserCheckResult', 'multiStepCheckResult'] as const) {
      const value = a[field];
      if (value !== null && JSON.stringify(value).length > MAX_RESULT_OBJECT_BYTES) out.push({ path: `${at}.${field}`, message: `exceeds ${MAX_RESULT_OBJECT_BYTES} bytes as JSON` });
    }
  });
  return out;
}

/** Claims runs for the caller, waiting up to `waitSeconds` for some to be due (long poll). */
async function waitForWork(ctx: ServerContext, caller: AgentCaller, body: z.infer<typeof claimsBody>, signal: AbortSignal) {
  const { agents } = runsOf(ctx);
  const deadline = Date.now() + body.waitSeconds * 1000;
  for (;;) {
    const claimed = agents.claim(caller.account, caller.locationId, body.max, body.agent.id);
    const left = deadline - Date.now();
    if (claimed.length > 0 || left <= 0 || signal.aborted) return claimed;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        agents.wake.off(caller.locationId, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(LOOK_AGAIN_MS, left));
      agents.wake.on(caller.locationId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

/** What an agent gets of a check: the stored check with its snippets' scripts, nothing of the account beyond. */
function runnable(ctx: ServerContext, account: string, slug: string, check: Record<string, unknown>): Record<string, unknown> {
  const { engine } = runsOf(ctx);
  const { alertChannelSubscriptions: _a, alertSettings: _s, ...rest } = engine.runnable(account, check as never) as Record<string, unknown>;
  return { ...rest, runLocation: slug };
}

async function readBody(c: Context<AppEnv>, limit: number): Promise<unknown> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > limit) throw new ApiError(413, `Request body exceeds ${limit} bytes`);
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new ApiError(415, 'Expected application/json');
  // A declared length bounds the body (the HTTP parser enforces it): read in one piece, without a
  // web stream (the node server reads it straight from the socket), as the API's bodies are; a
  // chunked body is streamed so that it can be cut off at the limit.
  let text: string | null;
  if (Number.isFinite(declared)) {
    const bytes = await c.req.raw.arrayBuffer();
    // In-process requests may declare a length their body does not have.
    text = bytes.byteLength > limit ? null : Buffer.from(bytes).toString('utf8');
  } else text = await readStreamLimited(c.req.raw.body, limit);
  if (text === null) throw new ApiError(413, `Request body exceeds ${limit} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'Invalid JSON in request body');
  }
}

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const problems = r.error.issues.slice(0, 20).map((i) => ({ path: i.path.join('.'), message: i.message }));
  throw problems.length > 0 ? validationError('payload', problems) : invalid('payload', '', 'is not valid');
}
