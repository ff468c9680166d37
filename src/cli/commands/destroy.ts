import { createInterface } from 'node:readline/promises';
import type { CliContext } from '../context.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import { connectionsFor, limiterFor, loadValid, runOptions, type RunFlags } from '../options.js';
import { ApiClient } from '../../api/index.js';
import { withCliApplySession } from '../apply-session.js';
import { succeeded } from '../../apply/result.js';
import { checkDeletes } from '../../apply/safety.js';
import { gitInfo } from '../../git/index.js';
import { kindsToFetch } from '../../plan/assemble.js';
import { assembleDestroyPlan } from '../../plan/destroy.js';
import { fetchLive } from '../../plan/fetch.js';
import { listVariables, ownershipFrom, VARIABLES_LIST } from '../../plan/record.js';
import type { Plan } from '../../plan/types.js';
import { clearingBlockers, findBlockers } from '../../apply/blockers.js';
import { renderPlan } from '../../render/index.js';
import { renderResult } from '../../render/result-index.js';
import { Refused } from '../../errors.js';

export interface DestroyFlags extends ConnectionFlags, RunFlags {
  yes?: boolean;
  typescript?: boolean;
}

/** `mac destroy [DIR]`: deletes everything the project manages; exit 0 done, 1 error, refusal or failure. */
export async function run(ctx: CliContext, dir: string, flags: DestroyFlags): Promise<void> {
  ctx.exit(await runDestroy(dir, flags, ctx));
}

async function runDestroy(dir: string, flags: DestroyFlags, ctx: CliContext): Promise<number> {
  const { output } = ctx;
  const { format, maxDeletes, concurrency, rateLimit, lockTimeout } = runOptions('destroy', flags, ctx.env);
  const connection = resolveConnection(flags, ctx.env);
  const project = await loadValid(ctx, dir, flags.typescript, 'nothing was deleted and no request was made');

  const limiter = limiterFor(rateLimit);
  const client = new ApiClient({ ...connection, connections: connectionsFor(concurrency), ...(limiter ? { limiter } : {}) });
  try {
    // Under the apply lock: no apply of the project writes while its resources are deleted.
    return await withCliApplySession(ctx, client, project.config.project, { command: 'mac destroy', timeoutSeconds: lockTimeout }, async (session) => {
      output.progress(`reading the live state from ${connection.apiUrl} ...`);
      let plan;
      try {
        const variables = await listVariables(client);
        const ownership = ownershipFrom(project.config.project, variables);
        const live = await fetchLive(client, kindsToFetch(project.definitions, ownership), new Map([[VARIABLES_LIST, variables]]));
        const planned = assembleDestroyPlan({ project, live, ownership, apiUrl: client.apiUrl, git: await gitInfo(project.dir) });
        const blockers = await findBlockers(client, planned);
        plan = blockers.length > 0 ? { ...planned, blockers } : planned;
      } finally {
        output.endProgress();
      }
      output.info(renderPlan(plan, 'text', output.cErr));
      const total = plan.summary.delete + (plan.blockers?.length ?? 0);
      const yes = flags.yes === true;
      // --max-deletes guards unattended runs; a typed confirmation covers the whole plan it shows.
      if (yes) checkDeletes(plan, maxDeletes, { destroy: true });
      if (total > 0 && !(await confirm(plan, yes, ctx))) return 1;

      const result = await session.apply(plan, {
        maxDeletes: yes ? maxDeletes : Number.POSITIVE_INFINITY,
        concurrency,
        destroy: true,
        account: (api) => clearingBlockers(api, client, plan),
      });
      output.result(renderResult(result, format, output.c));
      return succeeded(result) ? 0 : 1;
    });
  } finally {
    await client.close();
  }
}

/** On a terminal, the project's name must be typed; without one, --yes is required. */
async function confirm(plan: Plan, yes: boolean, ctx: CliContext): Promise<boolean> {
  if (yes) return true;
  if (!ctx.output.interactive || !process.stdin.isTTY) {
    throw new Refused('mac destroy needs --yes when it cannot ask (no terminal)', { hint: 'review the deletes above, then run again with --yes' });
  }
  const resources = plan.summary.delete;
  const blockers = plan.blockers?.length ?? 0;
  const total = resources + blockers;
  const detail = blockers > 0 ? ` (${resources} resource${resources === 1 ? '' : 's'} and ${blockers} incident${blockers === 1 ? '' : 's'} or subscription${blockers === 1 ? '' : 's'} that block them)` : '';
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl
      .question(`This deletes ${total} object${total === 1 ? '' : 's'}${detail} of project "${plan.project}". Type the project name to confirm: `)
      .catch(() => '');
    if (answer.trim() === plan.project) return true;
    ctx.output.info('destroy cancelled; nothing was deleted');
    return false;
  } finally {
    rl.close();
  }
}
