import { createInterface } from 'node:readline/promises';
import type { CliContext, RegisterCommand } from '../context.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import { connectionsFor, DIR_HELP, limiterFor, loadValid, runOptions, withConnectionOptions, withRunOptions, type RunFlags } from '../options.js';
import { ApiClient } from '../../api/index.js';
import { apiAccount } from '../../apply/account.js';
import { guardAccount } from '../../apply/lock.js';
import { withCliApplyLock } from '../apply-lock.js';
import { applyPlan } from '../../apply/apply.js';
import { createProgressReporter } from '../../apply/progress.js';
import { succeeded } from '../../apply/result.js';
import { checkDeletes } from '../../apply/safety.js';
import { gitInfo } from '../../git/index.js';
import { kindsToFetch } from '../../plan/assemble.js';
import { assembleDestroyPlan } from '../../plan/destroy.js';
import { fetchLive } from '../../plan/fetch.js';
import { renderPlan } from '../../render/index.js';
import { renderResult } from '../../render/result-index.js';
import { Refused } from '../../errors.js';

interface DestroyFlags extends ConnectionFlags, RunFlags {
  yes?: boolean;
  typescript?: boolean;
}

/** `mac destroy [DIR]`: deletes everything the project manages; exit 0 done, 1 error, refusal or failure. */
export const register: RegisterCommand = (program, ctx) => {
  withConnectionOptions(
    withRunOptions(
      program
        .command('destroy')
        .description("delete everything the project manages: its tagged checks and every defined resource of the other kinds")
        .argument('[dir]', DIR_HELP, '.')
        .option('--yes', 'delete without asking (required without a terminal)'),
      'deletes in flight',
    ),
  ).action(async (dir: string, flags: DestroyFlags) => {
    ctx.exit(await runDestroy(dir, flags, ctx));
  });
};

async function runDestroy(dir: string, flags: DestroyFlags, ctx: CliContext): Promise<number> {
  const { output } = ctx;
  const { format, maxDeletes, concurrency, rateLimit, lockTimeout } = runOptions('destroy', flags, ctx.env);
  const connection = resolveConnection(flags, ctx.env);
  const project = await loadValid(ctx, dir, flags.typescript, 'nothing was deleted and no request was made');

  const limiter = limiterFor(rateLimit);
  const client = new ApiClient({ ...connection, connections: connectionsFor(concurrency), ...(limiter ? { limiter } : {}) });
  try {
    // Under the apply lock: no apply of the project writes while its resources are deleted.
    return await withCliApplyLock(ctx, client, project.config.project, { command: 'mac destroy', timeoutSeconds: lockTimeout }, async (lock) => {
      output.progress(`reading the live state from ${connection.apiUrl} ...`);
      let live;
      try {
        live = await fetchLive(client, kindsToFetch(project.definitions));
      } finally {
        output.endProgress();
      }
      const plan = assembleDestroyPlan({ project, live, apiUrl: client.apiUrl, git: await gitInfo(project.dir) });
      output.info(renderPlan(plan, 'text', output.cErr));
      // Refuse too many deletes before asking anyone to confirm them (apply checks again).
      checkDeletes(plan, maxDeletes, { destroy: true });
      if (plan.summary.delete > 0 && !(await confirm(plan.project, plan.summary.delete, flags.yes === true, ctx))) return 1;

      const progress = createProgressReporter({ sink: output, requests: () => client.stats.total });
      let result;
      try {
        result = await applyPlan(plan, guardAccount(apiAccount({ client, project: plan.project }), lock), { maxDeletes, concurrency, destroy: true, onProgress: progress.onProgress });
      } finally {
        progress.finish();
      }
      output.result(renderResult(result, format, output.c));
      return succeeded(result) ? 0 : 1;
    });
  } finally {
    await client.close();
  }
}

/** On a terminal, the project's name must be typed; without one, --yes is required. */
async function confirm(project: string, count: number, yes: boolean, ctx: CliContext): Promise<boolean> {
  if (yes) return true;
  if (!ctx.output.interactive || !process.stdin.isTTY) {
    throw new Refused('mac destroy needs --yes when it cannot ask (no terminal)', { hint: 'review the deletes above, then run again with --yes' });
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`This deletes ${count} resource${count === 1 ? '' : 's'} of project "${project}". Type the project name to confirm: `);
    if (answer.trim() === project) return true;
    ctx.output.info('destroy cancelled; nothing was deleted');
    return false;
  } finally {
    rl.close();
  }
}
