import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import type { CliContext } from '../context.js';
import { resolveConnection } from '../../config/connection.js';
import { applyOptions, connectionsFor, limiterFor, loadValid, type ApplyCommandOptions, type ApplyFlags } from '../options.js';
import { ApiClient } from '../../api/index.js';
import { readPlanFile } from '../../apply/plan-file.js';
import { succeeded } from '../../apply/result.js';
import { checkDeletes } from '../../apply/safety.js';
import type { ApplySession } from '../../apply/session.js';
import { isReservedVariable } from '../../schema/lock-key.js';
import { withCliApplySession } from '../apply-session.js';
import { recoverSecrets, type SecretSources, type SecretValues } from '../../apply/secrets.js';
import { loadProject } from '../../config/load.js';
import { desiredBodies } from '../../plan/desired.js';
import { createPlan } from '../../plan/plan.js';
import type { Plan } from '../../plan/types.js';
import { renderResult } from '../../render/result-index.js';
import { MacError, Refused } from '../../errors.js';
import { renderPlan } from '../../render/index.js';

/** `mac apply [DIR|PLANFILE]`: plans (or reads a saved plan) and makes the account match it. */
export async function run(ctx: CliContext, target: string, flags: ApplyFlags): Promise<void> {
  ctx.exit(await runApply(await applyOptions(target, flags, ctx.env, ctx.cwd), flags, ctx));
}

async function runApply(options: ApplyCommandOptions, flags: ApplyFlags, ctx: CliContext): Promise<number> {
  const { output } = ctx;
  const connection = resolveConnection(flags, ctx.env);
  const limiter = limiterFor(options.rateLimit);
  const client = new ApiClient({ ...connection, connections: connectionsFor(options.concurrency), ...(limiter ? { limiter } : {}) });
  try {
    if (options.target.type === 'planfile') {
      if (options.prune) throw new MacError('--prune applies to a directory; a saved plan already says what it deletes', { hint: 'plan with mac plan --prune --out FILE' });
      if (flags.rewriteSecrets) throw new MacError('--rewrite-secrets applies to a directory; a saved plan already says what it writes', { hint: 'plan with mac plan --rewrite-secrets --out FILE' });
      const plan = await readPlanFile(options.target.file);
      if (plan.apiUrl.replace(/\/+$/, '') !== client.apiUrl) {
        throw new Refused(`the plan was made against ${plan.apiUrl}, not ${client.apiUrl}`, { hint: 'apply it with --api-url / MAC_API_URL set to the planned API, or plan again' });
      }
      const lockChange = plan.changes.find((c) => c.kind === 'EnvironmentVariable' && isReservedVariable(c.id));
      if (lockChange) throw new Refused(`the plan touches mac's own variable ${lockChange.id} (apply lock or ownership record); mac never plans it`, { hint: 'plan again with this version of mac' });
      const sources: SecretSources = { env: ctx.env, ...(plan.dir ? { reload: () => reloadBodies(plan.dir!, plan.project, ctx.env, flags.typescript !== false) } : {}) };
      // Secrets are recovered before the lock: a refusal for a missing one keeps nobody waiting.
      const secrets = await recoverSecrets(plan.changes, sources);
      // The staleness check inside applyPlan runs under the lock: what another apply wrote before it is seen.
      return await withCliApplySession(ctx, client, plan.project, lockSettings(options), (session) => execute(session, plan, secrets));
    }
    const project = await loadValid(ctx, options.target.dir, flags.typescript, 'nothing was applied and no request was made');
    const sources: SecretSources = { env: ctx.env, reload: async () => desiredBodies(project.definitions, project.config.project) };
    // The lock is taken before planning: a second apply then plans from what the first one wrote.
    return await withCliApplySession(ctx, client, project.config.project, lockSettings(options), async (session) => {
      const plan = await createPlan(project, client, { prune: options.prune, rewriteSecrets: flags.rewriteSecrets === true });
      // The plan goes to stderr: stdout holds only the result (one JSON document with --format json).
      output.info(renderPlan(plan, 'text', output.cErr));
      // Refuse unsafe deletes and unset secrets before asking anyone to confirm them (apply checks again).
      checkDeletes(plan, options.maxDeletes);
      const secrets = await recoverSecrets(plan.changes, sources);
      if (plan.summary.create + plan.summary.update + plan.summary.delete > 0 && !(await confirm(options, ctx))) return 1;
      return execute(session, plan, secrets);
    });
  } finally {
    await client.close();
  }

  async function execute(session: ApplySession, plan: Plan, secrets: SecretValues): Promise<number> {
    const result = await session.apply(plan, { maxDeletes: options.maxDeletes, concurrency: options.concurrency, secrets });
    output.result(renderResult(result, options.format, output.c));
    return succeeded(result) ? 0 : 1;
  }
}

function lockSettings(options: ApplyCommandOptions): { command: string; timeoutSeconds: number } {
  return { command: options.target.type === 'planfile' ? 'mac apply PLANFILE' : 'mac apply', timeoutSeconds: options.lockTimeout };
}

/** Asks on a terminal unless --yes; without a terminal, --yes is required. */
async function confirm(options: ApplyCommandOptions, ctx: CliContext): Promise<boolean> {
  if (options.yes) return true;
  if (!ctx.output.interactive || !process.stdin.isTTY) {
    throw new Refused('mac apply needs --yes when it cannot ask (no terminal)', { hint: 'review the plan above, then run again with --yes; or apply a reviewed plan file' });
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    // Ctrl-C or end of input at the prompt cancels (and the lock is released on the way out).
    const answer = await rl.question('Apply these changes? Only "yes" is accepted: ').catch(() => '');
    if (answer.trim() === 'yes') return true;
    ctx.output.info('apply cancelled; nothing was changed');
    return false;
  } finally {
    rl.close();
  }
}

/** The planned directory's bodies; none when it is gone (each missing secret is then named by the refusal). */
async function reloadBodies(dir: string, project: string, env: Record<string, string | undefined>, typescript: boolean): Promise<Map<string, Record<string, unknown>>> {
  const isDir = await stat(dir).then((s) => s.isDirectory(), () => false);
  if (!isDir) return new Map();
  const loaded = await loadProject(dir, { env, typescript });
  return desiredBodies(loaded.definitions, project);
}
