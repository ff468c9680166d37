// Entry of the GitHub Action bundle (action.yml: runs.main). With src/cli, the only code that
// reads the environment and decides how the process ends.
import * as core from '@actions/core';
import { getOctokit } from '@actions/github';
import { join, resolve } from 'node:path';
import { resolveConnection } from '../cli/connection.js';
import { MacError } from '../errors.js';
import { readRunContext, type RunContext } from './event.js';
import { parseInputs } from './inputs.js';
import { projectDirInRepo } from './links.js';
import type { PublishTarget } from './publish.js';
import { runApply, runPlan, type ActionRun } from './run.js';

// Events whose default command is apply: a merge to the default branch, or a person asking.
const APPLY_EVENTS = new Set(['push', 'workflow_dispatch']);

async function main(env: NodeJS.ProcessEnv): Promise<void> {
  const inputs = parseInputs((name) => core.getInput(name));
  if (inputs.apiKey) core.setSecret(inputs.apiKey);
  const ctx = readRunContext(env, process.cwd());
  const command = inputs.command ?? (APPLY_EVENTS.has(ctx.eventName) ? 'apply' : 'plan');
  const connection = resolveConnection({ apiUrl: inputs.apiUrl, apiKey: inputs.apiKey, accountId: inputs.accountId }, env);
  const projectDir = projectDirInRepo(ctx.workspace, inputs.dir);
  const target: PublishTarget = {
    ctx,
    projectDir,
    comment: inputs.comment,
    octokit: inputs.githubToken ? getOctokit(inputs.githubToken, { baseUrl: env.GITHUB_API_URL || undefined }) : undefined,
    planFile: join(env.RUNNER_TEMP || ctx.workspace, `mac-plan-${projectDir === '.' ? 'root' : projectDir.replace(/[^\w.-]+/g, '_')}.json`),
  };
  const changedSince = scopeOf(inputs.changedSince, ctx);
  const run: ActionRun = { dir: resolve(ctx.workspace, inputs.dir), connection, inputs, changedSince, target, env };
  core.info(`mac ${command} of ${projectDir} against ${connection.apiUrl}${changedSince ? ` (files changed since ${changedSince.ref})` : ''}`);
  if (command === 'plan') await runPlan(run);
  else await runApply(run);
}

/** The changed-since scope: the input, else the pull request's base; `none` (null) plans everything. */
function scopeOf(input: string | null | undefined, ctx: RunContext): ActionRun['changedSince'] {
  if (input === null) return undefined;
  if (input !== undefined) return { ref: input, fromEvent: false };
  const base = ctx.pullRequest?.baseSha;
  return base ? { ref: base, fromEvent: true } : undefined;
}

main(process.env).catch((err: unknown) => {
  if (err instanceof MacError) {
    core.setFailed(err.hint ? `${err.message}\nhint: ${err.hint}` : err.message);
  } else {
    core.setFailed(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\nhint: this is a bug in mac; please report it with the workflow log`);
  }
});
