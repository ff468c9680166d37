import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { CliContext, RegisterCommand } from '../context.js';
import { resolveConnection, withConnectionOptions, type ConnectionFlags } from '../connection.js';
import { connectionsFor, limiterFor, parseCount, parseRateLimit } from '../apply-options.js';
import { ApiClient } from '../../api/index.js';
import { apiAccount } from '../../apply/account.js';
import { guardAccount } from '../../apply/lock.js';
import { withCliApplyLock } from '../apply-lock.js';
import { NO_TYPESCRIPT_HELP } from '../typescript-option.js';
import { applyPlan } from '../../apply/apply.js';
import { DEFAULT_CONCURRENCY } from '../../apply/executor.js';
import { createProgressReporter } from '../../apply/progress.js';
import { succeeded } from '../../apply/result.js';
import { checkDeletes, DEFAULT_MAX_DELETES } from '../../apply/safety.js';
import { formatDiagnostic, summarizeDiagnostics } from '../../config/format.js';
import { loadProject } from '../../config/load.js';
import { gitInfo } from '../../git/index.js';
import { kindsToFetch } from '../../plan/assemble.js';
import { assembleDestroyPlan } from '../../plan/destroy.js';
import { fetchLive } from '../../plan/fetch.js';
import { renderPlan } from '../../render/index.js';
import { RESULT_FORMATS, renderResult, type ResultFormat } from '../../render/result-index.js';
import { Refused, UsageError, ValidationFailed } from '../../errors.js';

interface DestroyFlags extends ConnectionFlags {
  yes?: boolean;
  maxDeletes?: string;
  concurrency?: string;
  format?: string;
  rateLimit?: string;
  lockTimeout?: string;
  typescript?: boolean;
}

/** `mac destroy [DIR]`: deletes everything the project manages; exit 0 done, 1 error, refusal or failure. */
export const register: RegisterCommand = (program, ctx) => {
  withConnectionOptions(
    program
      .command('destroy')
      .description("delete everything the project manages: its tagged checks and every defined resource of the other kinds")
      .argument('[dir]', 'project directory holding mac.config.yaml', '.')
      .option('--yes', 'delete without asking (required without a terminal)')
      .option('--max-deletes <n>', 'refuse when more resources than this would be deleted', String(DEFAULT_MAX_DELETES))
      .option('--concurrency <n>', 'deletes in flight at once within a wave', String(DEFAULT_CONCURRENCY))
      .option('--rate-limit <n/seconds>', 'at most N requests per SECONDS (env MAC_RATE_LIMIT; default the service limit 600/60)')
      .option('--lock-timeout <seconds>', 'wait up to SECONDS for an apply of the project to end (default 0: refuse at once, naming it)')
      .option('--format <format>', 'result format: text, markdown or json', 'text')
      .option('--no-typescript', NO_TYPESCRIPT_HELP),
  ).action(async (dir: string, flags: DestroyFlags) => {
    ctx.exit(await runDestroy(dir, flags, ctx));
  });
};

async function runDestroy(dir: string, flags: DestroyFlags, ctx: CliContext): Promise<number> {
  const { output } = ctx;
  const format = (flags.format ?? 'text') as ResultFormat;
  if (!RESULT_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${RESULT_FORMATS.join(', ')}, got "${flags.format}"`, { hint: 'run "mac destroy --help" for usage' });
  const maxDeletes = parseCount('--max-deletes', flags.maxDeletes, DEFAULT_MAX_DELETES, 0);
  const concurrency = parseCount('--concurrency', flags.concurrency, DEFAULT_CONCURRENCY, 1, 256);
  const rateLimit = flags.rateLimit !== undefined ? parseRateLimit(flags.rateLimit, '--rate-limit') : parseRateLimit(ctx.env.MAC_RATE_LIMIT, 'MAC_RATE_LIMIT');
  const lockTimeout = parseCount('--lock-timeout', flags.lockTimeout, 0, 0);
  const connection = resolveConnection(flags, ctx.env);

  const project = await loadProject(resolve(ctx.cwd, dir), { env: ctx.env, typescript: flags.typescript !== false });
  for (const d of project.diagnostics) output.info(formatDiagnostic(d, output.cErr));
  if (project.diagnostics.some((d) => d.severity === 'error')) {
    throw new ValidationFailed(`invalid definitions: ${summarizeDiagnostics(project.diagnostics)}; nothing was deleted and no request was made`, { diagnostics: project.diagnostics });
  }

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
