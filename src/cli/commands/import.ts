import { mkdir } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { CliContext } from '../context.js';
import { IMPORT_CONCURRENCY } from '../declare/import.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import { MAX_CONCURRENCY, parseCount, rateLimitFrom } from '../../config/options.js';
import { usageHint } from '../help.js';
import { ApiClient } from '../../api/index.js';
import { loadProject } from '../../config/load.js';
import { renderImport } from '../../import/report.js';
import { runImport } from '../../import/run.js';
import { selectKinds } from '../../import/select.js';
import { createPlan } from '../../plan/index.js';

export interface ImportFlags extends ConnectionFlags {
  out: string;
  kind?: string[];
  project?: string;
  concurrency?: string;
  rateLimit?: string;
  typescript: boolean;
}

/** `mac import [--out DIR] [--kind KIND ...]`: write definitions for what lives in the account, then prove them. */
export async function run(ctx: CliContext, flags: ImportFlags): Promise<void> {
  const kinds = selectKinds(flags.kind);
  const concurrency = parseCount('--concurrency', flags.concurrency, { fallback: IMPORT_CONCURRENCY, min: 1, max: MAX_CONCURRENCY, hint: usageHint('import') });
  const rateLimit = rateLimitFrom(flags.rateLimit, ctx.env);
  const dir = resolve(ctx.cwd, flags.out);
  await mkdir(dir, { recursive: true });
  const connection = resolveConnection(flags, ctx.env);
  // One client for the whole run: its token bucket paces the fetch and the round-trip plan together.
  const client = new ApiClient({ ...connection, rateLimit });
  try {
    const result = await runImport(
      { dir, kinds, project: flags.project, env: ctx.env, client, concurrency, typescript: flags.typescript, onProgress: (t) => ctx.output.progress(t) },
      {
        load: (d, env) => loadProject(d, { env, typescript: flags.typescript }),
        plan: (project, c) => createPlan(project, c, { prune: false }),
      },
    );
    ctx.output.endProgress();
    const shown = relative(ctx.cwd, dir) || '.';
    const report = renderImport(result, shown);
    for (const line of report.stderr) ctx.output.info(line);
    ctx.output.result(report.stdout.join('\n'));
    ctx.exit(report.exitCode);
  } finally {
    await client.close();
  }
}
