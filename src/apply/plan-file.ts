import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { PLAN_VERSION, PlanSchema, type Plan } from '../plan/types.js';
import { MacError, UsageError } from '../errors.js';

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
  const parsed = PlanSchema.safeParse(doc);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`);
    throw new UsageError(`${source} is not a valid plan: ${problems.join('; ')}`, { hint: 'write plans with mac plan --out FILE and apply them unedited' });
  }
  checkSummary(parsed.data, source);
  return parsed.data;
}

/**
 * Refuses a plan whose `summary` does not count its own changes (an edited file): nothing in
 * mac trusts the summary, but a reviewer reads it, so it must say what the changes do.
 */
function checkSummary(plan: Plan, source: string): void {
  const problems: string[] = [];
  for (const action of ['create', 'update', 'delete', 'noop'] as const) {
    const ops = plan.changes.filter((c) => c.action === action);
    if (ops.length === plan.summary[action]) continue;
    const named = ops.slice(0, 5).map((c) => `${action} ${c.kind}/${c.id}`);
    problems.push(`summary.${action} is ${plan.summary[action]} but the changes hold ${ops.length}${named.length > 0 ? ` (${named.join(', ')}${ops.length > 5 ? ', ...' : ''})` : ''}`);
  }
  const orphans = plan.orphaned?.length ?? 0;
  if (plan.summary.orphaned !== undefined && plan.summary.orphaned !== orphans) problems.push(`summary.orphaned is ${plan.summary.orphaned} but the plan lists ${orphans} orphans`);
  if (problems.length > 0) {
    throw new UsageError(`${source}: the summary does not match the changes: ${problems.join('; ')}`, { hint: 'the file was edited after mac plan wrote it; plan again (mac plan DIR --out FILE) and apply the plan unedited' });
  }
}

/** Largest plan file read (a plan of 50,000 resources is far below it). */
export const MAX_PLAN_FILE_BYTES = 256 * 1024 * 1024;

/**
 * Reads a plan file as a bounded regular file: opened without blocking (a FIFO never waits
 * for a writer), refused at once when it is not a regular file (a FIFO, a device such as
 * /dev/zero, a directory) or larger than `max` bytes, and never read past `max`.
 */
export async function readBoundedFile(path: string, max = MAX_PLAN_FILE_BYTES): Promise<string> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (cause) {
    throw new MacError(`cannot read plan file ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const what = info.isFIFO() ? 'a FIFO (named pipe)' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : info.isDirectory() ? 'a directory' : info.isSocket() ? 'a socket' : 'not a regular file';
      throw new UsageError(`${path} is ${what}, not a plan file`, { hint: 'pass a plan written by mac plan --out FILE (a regular file), or a project directory' });
    }
    if (info.size > max) throw new UsageError(`${path} is ${info.size} bytes, more than a plan file may be (${max})`, { hint: 'pass a plan written by mac plan --out FILE' });
    // Read at most max + 1 bytes whatever the size said: a file growing meanwhile is cut, then refused.
    const buffer = Buffer.alloc(Math.min(info.size, max) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > Math.min(info.size, max)) throw new UsageError(`${path} changed while it was read`, { hint: 'pass a plan written by mac plan --out FILE, once written' });
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Reads and checks a plan file written by `mac plan --out`. */
export async function readPlanFile(path: string): Promise<Plan> {
  const text = await readBoundedFile(path);
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
