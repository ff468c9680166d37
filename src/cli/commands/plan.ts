import { UsageError } from '../../errors.js';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ApiClient } from '../../api/client.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import { parseChoice, rateLimitFrom } from '../../config/options.js';
import { changedFiles, gitInfo } from '../../git/index.js';
import { createPlan, prefetchLive, type LivePrefetch } from '../../plan/plan.js';
import { PLAN_FORMATS, renderPlan, type PlanFormat } from '../../render/index.js';
import type { CliContext } from '../context.js';
import { loadValid } from '../options.js';
import { usageHint } from '../help.js';

export interface PlanFlags extends ConnectionFlags {
  out?: string;
  format?: string;
  detailedExitcode?: boolean;
  prune?: boolean;
  rewriteSecrets?: boolean;
  changedSince?: string;
  onlyChangedSince?: string;
  rateLimit?: string;
  typescript: boolean;
}

/** `mac plan [DIR]`: compare the definitions with the live account; exit 0 (2 = changes with --detailed-exitcode), 1 error. */
export async function run(ctx: CliContext, dir: string, flags: PlanFlags): Promise<void> {
  const { output } = ctx;
  const format: PlanFormat = parseChoice('--format', flags.format, PLAN_FORMATS, 'text', { hint: usageHint('plan') });
  const connection = resolveConnection(flags, ctx.env);
  const rateLimit = rateLimitFrom(flags.rateLimit, ctx.env);
  if (flags.changedSince !== undefined && flags.onlyChangedSince !== undefined) {
    throw new UsageError('--changed-since and --only-changed-since exclude each other', { hint: '--changed-since highlights the changed files in a plan of everything; --only-changed-since narrows the plan to them' });
  }
  // The live state is read while the definitions are parsed: as soon as the files are read,
  // the kinds they appear to define are fetched (plan.ts prefetchLive); the plan fetches
  // afterwards only a kind the first look missed.
  const client = new ApiClient({ ...connection, rateLimit });
  let prefetch: LivePrefetch | undefined;
  let plan;
  let planned = false;
  try {
    const project = await loadValid(ctx, dir, flags.typescript, 'nothing was planned', {
      onFilesRead: (kinds) => {
        output.progress(`reading the live state from ${connection.apiUrl} ...`);
        prefetch = prefetchLive(client, kinds);
      },
    });
    const since = flags.onlyChangedSince ?? flags.changedSince;
    const changedSince = since === undefined ? undefined : { ref: since, files: await changedFiles(project.dir, since), only: flags.onlyChangedSince !== undefined };
    const git = await gitInfo(project.dir);
    output.progress(`reading the live state from ${connection.apiUrl} ...`);
    plan = await createPlan(project, client, { prune: flags.prune === true, rewriteSecrets: flags.rewriteSecrets === true, changedSince, git }, prefetch);
    planned = true;
  } finally {
    output.endProgress();
    // No plan (invalid definitions, an error): the requests of the prefetch still under way end now.
    await (planned ? client.close() : client.abort());
  }
  if (flags.out !== undefined) {
    const file = resolve(ctx.cwd, flags.out);
    await writeFile(file, `${JSON.stringify(plan, null, 2)}\n`, 'utf8');
    output.info(`plan written to ${flags.out}`);
  }
  output.result(renderPlan(plan, format, output.c));
  const changes = plan.summary.create + plan.summary.update + plan.summary.delete;
  ctx.exit(flags.detailedExitcode && changes > 0 ? 2 : 0);
}
