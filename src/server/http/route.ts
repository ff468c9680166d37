import type { Context, Next } from 'hono';
import type { z } from 'zod';
import { ApiError, invalid } from './errors.js';
import { parseOrThrow } from './validation.js';
import { readQuery } from './query.js';
import { takesReserved } from './paths.js';
import { MAX_BODY_BYTES } from '../options.js';
import type { Caller, ServerContext } from '../context.js';
import type { AppEnv } from './env.js';
import { readStreamLimited } from '../../runner/bounded-read.js';

/** HTTP methods the API serves. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route handler receives once every guard and validation has passed. */
export interface RouteInput<P, Q, B> {
  caller: Caller;
  /** The caller's account (every lookup is scoped to it). */
  account: string;
  params: P;
  query: Q;
  body: B;
  ctx: ServerContext;
  /** The Hono context, for what the above does not cover (client address, headers). */
  c: Context<AppEnv>;
}

/** A route's answer: status, JSON body (absent for 204) and extra headers. */
export interface Reply {
  status: number;
  body?: unknown;
  /** The body already serialized as JSON (cached views, as text or UTF-8 bytes); wins over `body`. */
  json?: string | Uint8Array;
  /** A body that is not JSON (a result's screenshot or trace) with its content type; wins over both. */
  file?: { bytes: Uint8Array; contentType: string };
  headers?: Record<string, string>;
}

/** One endpoint: method, Hono path, zod schemas of its inputs and its handler. */
export interface RouteSpec<P = unknown, Q = unknown, B = unknown> {
  method: Method;
  path: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** Body schema; a route without one ignores any body unread (GET, DELETE, endpoints 18/19). */
  body?: z.ZodType<B>;
  /** Whether read-only keys may call it (default: only GET). */
  readOnlyAllowed?: boolean;
  handle(input: RouteInput<P, Q, B>): Reply | Promise<Reply>;
}

/** Declares a route with its input types inferred from its schemas. */
export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined>(spec: RouteSpec<P, Q, B>): RouteSpec<P, Q, B> {
  return spec;
}

/** A route module: builds its routes from the service context (one file per API area). */
export type RouteModule = (ctx: ServerContext) => RouteSpec<any, any, any>[];

/** 200 with a JSON body. */
export const ok = (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers });
/** 201 with a JSON body. */
export const created = (body: unknown): Reply => ({ status: 201, body });
/** 204 without a body. */
export const noContent = (): Reply => ({ status: 204 });

/**
 * Runs the per-route part of the decided order of checks (api-decisions §1.1): role 403 ->
 * size 413 -> content type 415 -> JSON 400 -> params, query, body validation 400; the handler
 * then does lookup 404 and conflict 409. Token, account and rate limit ran before routing.
 * A parameter holding a literal of another route (`reserved`, see http/paths.ts) passes the
 * request on, so it ends as an unknown route (404).
 */
export function toHandler(spec: RouteSpec<any, any, any>, ctx: ServerContext, reserved?: Map<string, Set<string>>) {
  const readOnlyAllowed = spec.readOnlyAllowed ?? spec.method === 'GET';
  return async (c: Context<AppEnv>, next: Next): Promise<Response | void> => {
    if (takesReserved(reserved, c.req.param())) return next();
    const caller = c.get('caller');
    if (!readOnlyAllowed && caller.role === 'read-only') throw new ApiError(403, 'This API key may only read');
    const rawBody = spec.body ? await readJsonBody(c) : undefined;
    const params = spec.params ? parseOrThrow('params', spec.params, c.req.param()) : {};
    const query = spec.query ? parseOrThrow('query', spec.query, readQuery(c.req.url)) : {};
    const body = spec.body ? parseOrThrow('payload', spec.body, rawBody) : undefined;
    const reply = await spec.handle({ caller, account: caller.accountId, params, query, body, ctx, c });
    return toResponse(reply);
  };
}

/** Builds the HTTP response of a reply. */
export function toResponse(reply: Reply): Response {
  if (reply.file) {
    const { bytes, contentType } = reply.file;
    return new Response(bytes, { status: reply.status, headers: { 'content-type': contentType, 'content-length': String(bytes.length), ...reply.headers } });
  }
  if (reply.status === 204 || (reply.body === undefined && reply.json === undefined)) return new Response(null, { status: reply.status, headers: reply.headers });
  return new Response(reply.json ?? JSON.stringify(reply.body), {
    status: reply.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...reply.headers },
  });
}

/** Reads a JSON object body: 413 over 1 MiB, 415 when not application/json, 400 when not JSON or not an object. */
async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  // A declared length bounds the body (the HTTP parser enforces it), so it is read in one piece
  // without a web stream; a chunked body is streamed so that it can be cut off at the limit.
  const text = Number.isFinite(declared) ? await readDeclared(c.req.raw) : await readLimited(c.req.raw);
  if (text === '') return undefined;
  const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new ApiError(415, 'Expected application/json');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'Invalid JSON in request body');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('payload', '', 'must be a JSON object');
  return value;
}

async function readDeclared(req: Request): Promise<string> {
  const bytes = await req.arrayBuffer();
  // In-process requests may declare a length their body does not have.
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  return Buffer.from(bytes).toString('utf8');
}

async function readLimited(req: Request): Promise<string> {
  const text = await readStreamLimited(req.body, MAX_BODY_BYTES);
  if (text === null) throw tooLarge();
  return text;
}

function tooLarge(): ApiError {
  return new ApiError(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`);
}
