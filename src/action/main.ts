// Entry of the GitHub Action bundle (action.yml: runs.main). With src/cli, the only code that
// reads the environment and decides how the process ends.
import * as core from '@actions/core';
import { getOctokit } from '@actions/github';
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveConnection } from '../config/connection.js';
import { MacError } from '../errors.js';
import { readRunContext, typescriptAllowed, type RunContext } from './event.js';
import { parseInputs, type ActionInputs } from './inputs.js';
import { projectDirInRepo } from './links.js';
import type { PublishTarget } from './publish.js';
import { runApply, runPlan, type ActionRun } from './run.js';
import { appendSummary } from './report.js';
import { scrub, scrubber } from './scrub.js';

// Events whose default command is apply: a merge to the default branch, or a person asking.
const APPLY_EVENTS = new Set(['push', 'workflow_dispatch']);

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const inputs = parseInputs((name) => core.getInput(name));
  if (inputs.apiKey) core.setSecret(inputs.apiKey);
  if (inputs.githubToken) core.setSecret(inputs.githubToken);
  const ctx = readRunContext(env, process.cwd());
  // Public names of the run: never masked, whatever value a definition reads (links would read github.com/***/blob/...).
  scrubber.keepPublic(`${ctx.owner}/${ctx.repo}`, ctx.serverUrl);
  const command = inputs.command ?? (inputs.planFile !== undefined || APPLY_EVENTS.has(ctx.eventName) ? 'apply' : 'plan');
  if (command === 'plan' && !inputs.apiKey && !env.MAC_API_KEY && ctx.pullRequest?.fromFork) {
    await skipForkPlan(ctx);
    return;
  }
  const connection = resolveConnection({ apiUrl: inputs.apiUrl, apiKey: inputs.apiKey, accountId: inputs.accountId, accountHeader: inputs.accountHeader }, env);
  // Never posted, whatever a definition holds: the credentials of the run.
  scrubber.add(inputs.apiKey, inputs.githubToken, connection.apiKey, env.MAC_API_KEY, env.GITHUB_TOKEN, env.ACTIONS_RUNTIME_TOKEN, env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);
  const typescript = typescriptAllowed(inputs.typescript, ctx);
  const projectDir = projectDirInRepo(ctx.workspace, inputs.dir);
  const target: PublishTarget = {
    ctx,
    projectDir,
    comment: inputs.comment,
    octokit: inputs.githubToken ? getOctokit(inputs.githubToken, { baseUrl: env.GITHUB_API_URL || undefined }) : undefined,
    planFile: join(env.RUNNER_TEMP || ctx.workspace, `mac-plan-${projectDir === '.' ? 'root' : projectDir.replace(/[^\w.-]+/g, '_')}.json`),
  };
  const changedSince = scopeOf(inputs, ctx);
  target.sinceIsPullRequestBase = changedSince?.fromEvent === true;
  // What definitions read from the environment is watched: each value read is scrubbed from every output.
  const run: ActionRun = {
    dir: resolve(ctx.workspace, inputs.dir),
    connection,
    inputs,
    changedSince,
    typescript,
    target,
    env: scrubber.watch(env),
    runnerEnv: env,
    lockTimeoutSeconds: inputs.lockTimeout,
  };
  const scoped = changedSince ? ` (${changedSince.only ? 'only' : 'listing first'} files changed since ${changedSince.ref})` : '';
  core.info(`mac ${command} of ${projectDir} against ${connection.apiUrl}${scoped}; *.mac.ts files ${typescript ? 'allowed' : 'refused'} (input typescript: ${inputs.typescript})`);
  if (command === 'plan') await runPlan(run);
  else await runApply(run);
}

/**
 * The changed-since ref: `only-changed-since` narrows; `changed-since` (default: the pull
 * request's base) only lists the changed files first; `none` (null) neither.
 */
function scopeOf(inputs: ActionInputs, ctx: RunContext): ActionRun['changedSince'] {
  if (inputs.onlyChangedSince !== undefined) return { ref: inputs.onlyChangedSince, fromEvent: false, only: true };
  if (inputs.changedSince === null) return undefined;
  if (inputs.changedSince !== undefined) return { ref: inputs.changedSince, fromEvent: false, only: false };
  const base = ctx.pullRequest?.baseSha;
  return base ? { ref: base, fromEvent: true, only: false } : undefined;
}

/**
 * A pull request from a fork gets no secrets: without an API key there is nothing to plan
 * against. That is how GitHub protects the account, not a failure of the pull request: the job
 * succeeds with a notice (and the summary) saying why no plan ran.
 */
async function skipForkPlan(ctx: RunContext): Promise<void> {
  const message =
    `No plan: pull request #${ctx.pullRequest!.number} comes from a fork, and GitHub gives a fork's pull request no secrets, so there is no API key (input api-key, MAC_API_KEY) to read the account with. ` +
    'Nothing was loaded or run. A maintainer can review the change, then push it to a branch of this repository (or merge it) to get the plan.';
  core.notice(scrub(message), { title: 'mac plan skipped' });
  await appendSummary(`### mac plan skipped\n\n> [!NOTE]\n> ${message}\n`);
}

/**
 * One run of the action, as the Actions runner starts it: the inputs (INPUT_*) and the run
 * (GITHUB_*, RUNNER_TEMP) from process.env, the log and workflow commands on process.stdout, the
 * outputs and the job summary in the files GITHUB_OUTPUT and GITHUB_STEP_SUMMARY name. Resolves
 * when the run has ended; a failure is reported as the runner reads it (an `::error` and
 * process.exitCode 1), never thrown. The bundle runs it once when Node runs the bundle
 * (action.yml: runs.main); a test that imports the bundle runs it as often as it likes, one run
 * at a time: each run starts with nothing sensitive remembered from the one before.
 */
export async function runAction(): Promise<void> {
  scrubber.clear();
  try {
    await main(process.env);
  } catch (err) {
    if (err instanceof MacError) {
      core.setFailed(scrub(err.hint ? `${err.message}\nhint: ${err.hint}` : err.message));
    } else {
      core.setFailed(scrub(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\nhint: this is a bug in mac; please report it with the workflow log`));
    }
  }
}

/** Whether Node runs this module as the process's entry (`node dist-action/index.mjs`), not an import of it. */
function isProcessEntry(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isProcessEntry()) void runAction();
