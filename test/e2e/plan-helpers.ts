import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import { loadProject } from '../../src/config/load.js';
import { createPlan, kindSpec, requestBody, secretValues } from '../../src/plan/index.js';
import type { Plan } from '../../src/plan/types.js';

/** Writes `files` (path -> text) into a fresh temporary project directory. */
export async function writeProject(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mac-plan-e2e-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text, 'utf8');
  }
  return dir;
}

/**
 * Creates every resource of the project through the API exactly as the engine would: the plan's
 * creates in order, with the bodies the kind table builds (references and secrets filled in).
 */
export async function createAsEngine(dir: string, client: ApiClient, env: Record<string, string>): Promise<Plan> {
  const project = await loadProject(dir, { env });
  const errors = project.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`fixture project is invalid:\n${errors.map((d) => `${d.file}:${d.line}: ${d.path}: ${d.message}`).join('\n')}`);
  const plan = await createPlan(project, client, { prune: false });
  const ids = new Map<string, string | number>();
  for (const change of plan.changes) {
    if (change.action !== 'create') continue;
    const spec = kindSpec(change.kind);
    const def = project.definitions.find((d) => d.kind === change.kind && d.id === change.id)!;
    const body = requestBody(change, ids, secretValues(def, project.config.project));
    const created = await client.post<Record<string, unknown>>(spec.api.create.path, body, spec.api.create.query);
    ids.set(`${change.kind}/${change.id}`, spec.remoteId(created));
  }
  return plan;
}
