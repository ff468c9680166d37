import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { ApiRequest } from '../types.js';
import { API_METHODS } from '../../schema/fields/values.js';
import type { ScriptPolicy, SandboxLimits } from '../sandbox.js';
import { handOver, readBounded, runProcess, sandboxCommand, scriptMode, scriptTempRoot } from '../sandbox.js';
import { FairPool } from '../fair-pool.js';
import { formatBytes, TREE_MEMORY_BYTES } from '../tree-memory.js';

/**
 * Setup and teardown scripts of API checks (the reference's `localSetupScript` and
 * `localTearDownScript`, or the script of the snippet a check names). Each runs as Node in the
 * script sandbox, in the style of the reference: a setup script changes `request` (`url`,
 * `method`, `headers`, `queryParameters`, `body`) before it is sent; a teardown script reads
 * `request` and `response` (`statusCode`, `statusText`, `headers`, `body`) after it. Top-level
 * `await` works, `process.env` holds the check's variables, and whatever the script throws or
 * any exit other than a normal end fails the run with the script's error. 10 s at most each.
 */

/** The reference's limit of a setup or teardown script. */
export const HOOK_TIMEOUT_MS = 10_000;
/** Bytes of the changed request read back (a hostile script may write anything there). */
const MAX_RESULT_BYTES = 256 * 1024;
/** Bytes of the script's output kept (its messages show in the error of a failing run). */
const MAX_OUTPUT_BYTES = 16 * 1024;
/** The largest body a setup script may set. */
const MAX_BODY_CHARS = 1024 * 1024;

/** Hook scripts at once in this process, shared fairly between accounts. */
export const HOOK_CONCURRENCY = Math.max(2, 2 * availableParallelism());
const pool = new FairPool(HOOK_CONCURRENCY);

/** The request as a script sees it. */
export interface ScriptRequest {
  method: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  queryParameters: Record<string, string>;
}

/** The response as a teardown script sees it. */
export interface ScriptResponse {
  statusCode: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
}

/** What a hook needs besides its script. */
export interface HookContext {
  env: Record<string, string>;
  /** Values of secret variables: replaced in a script's error (results never show them). */
  secrets?: string[];
  account?: string;
  policy?: ScriptPolicy;
  limits?: Partial<SandboxLimits>;
  timeoutMs?: number;
  /** Memory of the script's whole process tree, bytes (default TREE_MEMORY_BYTES). */
  treeMemoryBytes?: number;
}

/** A hook's end: the request it left (setup) or the error that fails the run. */
export type HookResult = { ok: true; request: ScriptRequest } | { ok: false; error: string };

/** The check's request as a script sees it: headers and query parameters as plain objects. */
export function scriptRequest(req: ApiRequest): ScriptRequest {
  const pairs = (list: ApiRequest['headers']) => Object.fromEntries(list.map((kv) => [kv.key, kv.value]));
  return { method: req.method, url: req.url, body: req.body, headers: pairs(req.headers), queryParameters: pairs(req.queryParameters) };
}

/**
 * The check's request with what a setup script changed. Locked headers the script kept keep
 * their lock (masked in results); new ones are not locked.
 */
export function applyScriptRequest(req: ApiRequest, changed: ScriptRequest): ApiRequest {
  const locked = new Set(req.headers.filter((h) => h.locked).map((h) => h.key.toLowerCase()));
  const lockedParams = new Set(req.queryParameters.filter((h) => h.locked).map((h) => h.key));
  return {
    ...req,
    method: changed.method as ApiRequest['method'],
    url: changed.url,
    body: changed.body,
    // A body the script gave a request that had none is sent as it is.
    bodyType: req.bodyType === 'NONE' && changed.body !== '' ? 'RAW' : req.bodyType,
    headers: Object.entries(changed.headers).map(([key, value]) => ({ key, value, locked: locked.has(key.toLowerCase()) })),
    queryParameters: Object.entries(changed.queryParameters).map(([key, value]) => ({ key, value, locked: lockedParams.has(key) })),
  };
}

const stringMap = z.record(z.string().max(8192), z.union([z.string(), z.number(), z.boolean()]).transform(String));
/** What the harness writes back: read as hostile (bounded, validated). */
const outputSchema = z.union([
  z.object({
    request: z.object({
      method: z.string().transform((m) => m.toUpperCase()).pipe(z.enum(API_METHODS)),
      url: z.string().min(1).max(2048),
      body: z.string().max(MAX_BODY_CHARS),
      headers: stringMap,
      queryParameters: stringMap,
    }),
  }),
  z.object({ error: z.string() }),
]);

/**
 * The harness: CommonJS that reads input.json, runs the user's script as the body of an async
 * function with `request` and `response` in scope, and writes output.json. Any body text fits:
 * the script is read from its own file and compiled by the AsyncFunction constructor, so no
 * text of it can close the harness's braces.
 */
const HARNESS = `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const dir = __dirname;
const out = (value) => fs.writeFileSync(path.join(dir, 'output.json'), JSON.stringify(value));
const input = JSON.parse(fs.readFileSync(path.join(dir, 'input.json'), 'utf8'));
const request = input.request;
const response = input.response;
const source = fs.readFileSync(path.join(dir, 'script.js'), 'utf8');
let fn;
try {
  const AsyncFunction = (async () => {}).constructor;
  fn = new AsyncFunction('request', 'response', 'require', 'module', 'exports', source);
} catch (e) {
  out({ error: 'the script does not compile: ' + (e && e.message ? e.message : String(e)) });
  process.exit(1);
}
fn(request, response, require, { exports: {} }, {}).then(
  () => { out({ request }); process.exit(0); },
  (e) => { out({ error: e && e.message ? e.message : String(e) }); process.exit(1); },
);
`;

/** Runs one setup (`response` null) or teardown script. */
export function runHook(phase: 'setup' | 'teardown', script: string, request: ScriptRequest, response: ScriptResponse | null, ctx: HookContext): Promise<HookResult> {
  const secrets = (ctx.secrets ?? []).filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
  const mask = (text: string) => secrets.reduce((t, v) => t.split(v).join('********'), text);
  return pool.run(ctx.account ?? '', () => hook(phase, script, request, response, ctx)).then((r) => (r.ok ? r : { ok: false, error: mask(r.error) }));
}

async function hook(phase: 'setup' | 'teardown', script: string, request: ScriptRequest, response: ScriptResponse | null, ctx: HookContext): Promise<HookResult> {
  const what = `${phase} script`;
  const mode = scriptMode(ctx.policy);
  if (mode.kind === 'refused') return { ok: false, error: `${what} not run: ${mode.message}` };
  const timeoutMs = ctx.timeoutMs ?? HOOK_TIMEOUT_MS;
  let dir: string | null = null;
  try {
    dir = await mkdtemp(join(scriptTempRoot(), 'mac-hook-'));
    await writeFile(join(dir, 'harness.cjs'), HARNESS);
    await writeFile(join(dir, 'script.js'), script);
    await writeFile(join(dir, 'input.json'), JSON.stringify({ request, response }));
    const argv = [process.execPath, join(dir, 'harness.cjs')];
    let plan;
    if (mode.kind === 'sandboxed') {
      await handOver(dir);
      plan = sandboxCommand(argv, { workDir: dir, env: ctx.env, limits: ctx.limits }, mode.bwrap);
    } else {
      plan = { file: argv[0], args: argv.slice(1), env: { ...(process.env.PATH ? { PATH: process.env.PATH } : {}), ...ctx.env, HOME: dir, TMPDIR: dir } };
    }
    const end = await runProcess({ ...plan, cwd: dir, killAfterMs: timeoutMs, maxOutputBytes: MAX_OUTPUT_BYTES, treeMemoryBytes: ctx.treeMemoryBytes ?? TREE_MEMORY_BYTES });
    if (end.spawnError !== null) return { ok: false, error: `${what} could not start: ${end.spawnError}` };
    if (end.stopped) return { ok: false, error: `${what} stopped: mac is shutting down` };
    if (end.overMemoryBytes !== null) {
      return { ok: false, error: `${what} was stopped: its processes used ${formatBytes(end.overMemoryBytes)} of memory together, over the ${formatBytes(ctx.treeMemoryBytes ?? TREE_MEMORY_BYTES)} a script may use` };
    }
    if (end.killed) return { ok: false, error: `${what} did not finish within ${timeoutMs / 1000} s` };
    const text = await readBounded(join(dir, 'output.json'), MAX_RESULT_BYTES, true);
    const parsed = outputSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      const said = end.output.trim().split('\n').slice(-3).join(' ').slice(0, 500);
      return { ok: false, error: `${what} ended without a result (exit code ${end.code})${said ? `: ${said}` : ''}` };
    }
    if ('error' in parsed.data) return { ok: false, error: `${what} failed: ${parsed.data.error.slice(0, 2000)}` };
    return { ok: true, request: parsed.data.request };
  } catch (err) {
    return { ok: false, error: `${what} could not run: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

