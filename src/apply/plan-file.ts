import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { KINDS } from '../schema/kinds.js';
import { PLAN_VERSION, type Plan } from '../plan/types.js';
import { MacError, UsageError } from '../errors.js';

const patchOp = z.object({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string(),
  value: z.unknown().optional(),
  from: z.string().optional(),
});

const change = z.object({
  action: z.enum(['create', 'update', 'delete', 'noop']),
  kind: z.enum(KINDS),
  id: z.string().min(1),
  name: z.string().optional(),
  remoteId: z.union([z.string(), z.number()]).optional(),
  file: z.string().optional(),
  line: z.number().optional(),
  patch: z.array(patchOp),
  liveFingerprint: z.string().optional(),
  dependsOn: z.array(z.string()),
  desired: z.record(z.string(), z.unknown()).optional(),
  secrets: z.array(z.object({ path: z.string(), env: z.string().optional(), missing: z.array(z.string()).optional() })).optional(),
  notes: z.array(z.string()).optional(),
});

/** The structure of a saved plan of the version this build understands. */
const planSchema = z.object({
  version: z.literal(PLAN_VERSION),
  project: z.string().min(1),
  createdAt: z.string(),
  apiUrl: z.string(),
  git: z.object({ commit: z.string().optional(), branch: z.string().optional() }).optional(),
  summary: z.object({ create: z.number(), update: z.number(), delete: z.number(), noop: z.number() }),
  changes: z.array(change),
  dir: z.string().optional(),
  changedSince: z.object({ ref: z.string(), files: z.array(z.string()) }).optional(),
  warnings: z.array(z.string()),
});

/**
 * Checks a parsed plan document: a version other than this build's is refused before anything
 * else, then the structure is validated. `source` names the file in messages.
 */
export function parsePlan(doc: unknown, source: string): Plan {
  const version = typeof doc === 'object' && doc !== null ? (doc as { version?: unknown }).version : undefined;
  if (version !== PLAN_VERSION) {
    // Only a number is echoed: any other value may be something else entirely (even a secret).
    const shown = typeof version === 'number' ? String(version) : version === undefined ? 'missing' : `of type ${typeof version}`;
    throw new UsageError(`${source}: plan version ${shown} is not supported (this mac reads version ${PLAN_VERSION})`, {
      hint: 'plan again with this version of mac: mac plan DIR --out FILE',
    });
  }
  const parsed = planSchema.safeParse(doc);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`);
    throw new UsageError(`${source} is not a valid plan: ${problems.join('; ')}`, { hint: 'write plans with mac plan --out FILE and apply them unedited' });
  }
  return parsed.data as Plan;
}

/** Reads and checks a plan file written by `mac plan --out`. */
export async function readPlanFile(path: string): Promise<Plan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new MacError(`cannot read plan file ${path}: ${(cause as Error).message}`, { cause });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    throw new UsageError(`${path} is not JSON${whereJsonFails(text, cause)}`, { cause, hint: 'pass a plan written by mac plan --out, or a project directory' });
  }
  return parsePlan(doc, path);
}

/**
 * Where JSON.parse gave up, as ` (line L, column C)`. Its own message is not shown: it quotes
 * the start of the text, and a file passed by mistake (an .env file, a key) may hold secrets.
 */
function whereJsonFails(text: string, err: unknown): string {
  const m = /at position (\d+)/.exec(err instanceof Error ? err.message : '');
  if (!m) return text.trim() === '' ? ' (the file is empty)' : '';
  const before = text.slice(0, Number(m[1])).split('\n');
  return ` (line ${before.length}, column ${before[before.length - 1]!.length + 1})`;
}
