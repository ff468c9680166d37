import * as core from '@actions/core';
import { ApiClient } from '../api/index.js';
import { apiAccount } from '../apply/account.js';
import { applyPlan } from '../apply/apply.js';
import { guardAccount, withApplyLock, type HeldLock, type LockOptions } from '../apply/lock.js';
import { localHolder } from '../cli/apply-lock.js';
import { DEFAULT_CONCURRENCY } from '../apply/executor.js';
import { succeeded, type ApplyResult } from '../apply/result.js';
import { recoverSecrets } from '../apply/secrets.js';
import type { Connection } from '../cli/connection.js';
import { loadProject } from '../config/load.js';
import type { LoadedProject } from '../config/types.js';
import { MacError, Refused, UsageError, ValidationFailed } from '../errors.js';
import { changedFiles, gitInfo } from '../git/index.js';
import { desiredBodies } from '../plan/desired.js';
import { createPlan } from '../plan/plan.js';
import type { Plan } from '../plan/types.js';
import { renderResultMarkdown } from '../render/result-markdown.js';
import { diagnosticAnnotations } from './annotations.js';
import type { ActionInputs } from './inputs.js';
import { repoPathOf } from './links.js';
import { planSummary, publishFailure, publishInvalid, publishPlan, type PublishTarget } from './publish.js';
import { annotate, appendSummary, setPlanOutputs, SUMMARY_LIMIT, writePlanFile } from './report.js';
import { size } from './comment/markdown.js';

/** One run of the action, resolved from inputs and the workflow context. */
export interface ActionRun {
  /** Absolute project dir. */
  dir: string;
  connection: Connection;
  inputs: ActionInputs;
  /** Git ref whose changed files scope the plan (`fromEvent`: the pull request's base, not an input); undefined plans everything. */
  changedSince?: { ref: string; fromEvent: boolean };
  target: PublishTarget;
  /** The environment `${{ env.NAME }}` in definitions reads. */
  env: Record<string, string | undefined>;
}

/** Plans and publishes the plan (comment, summary, outputs, annotations). Invalid definitions fail the run. */
export async function runPlan(run: ActionRun): Promise<void> {
  const project = await load(run);
  await withClient(run, async (client) => {
    let planned: Plan;
    try {
      planned = await plan(run, project, client);
    } catch (err) {
      await publishFailure(describe(err), run.target).catch((e: unknown) => core.warning(`could not publish the failure: ${describe(e)}`));
      throw err;
    }
    await publishPlan(planned, run.target);
  });
}

/**
 * Plans and applies with the CLI's safety rules (max-deletes, never empty a project, ownership,
 * staleness); the applied / failed / skipped table goes to the job summary, and anything short
 * of a full, converged apply fails the run.
 */
export async function runApply(run: ActionRun): Promise<void> {
  const project = await load(run);
  await withClient(run, (client) => withApplyLock(client, project.config.project, actionLock(run), (lock) => applyLocked(run, project, client, lock)));
}

/** A workflow run waits this long for another apply of the project (two merges in a row) before it fails naming the holder. */
const ACTION_LOCK_TIMEOUT_MS = 300_000;

function actionLock(run: ActionRun): LockOptions {
  const where = [run.env.GITHUB_REPOSITORY, run.env.GITHUB_RUN_ID && `run ${run.env.GITHUB_RUN_ID}`].filter(Boolean).join(' ');
  const holder = localHolder(`mac action apply${where ? ` (${where})` : ''}`, run.env);
  return { holder: { ...holder, user: run.env.GITHUB_ACTOR || holder.user }, timeoutMs: ACTION_LOCK_TIMEOUT_MS, onNotice: (m) => core.info(m) };
}

/** Plans and applies under the project's apply lock (the plan, too: it must see what an apply before it wrote). */
async function applyLocked(run: ActionRun, project: LoadedProject, client: ApiClient, lock: HeldLock): Promise<void> {
  const planned = await plan(run, project, client);
  setPlanOutputs(planned, await writePlanFile(planned, run.target.planFile));
  let result: ApplyResult;
  try {
    const secrets = await recoverSecrets(planned.changes, { env: run.env, reload: async () => desiredBodies(project.definitions, planned.project) });
    result = await applyPlan(planned, guardAccount(apiAccount({ client, project: planned.project }), lock), {
      maxDeletes: run.inputs.maxDeletes,
      concurrency: run.inputs.concurrency ?? DEFAULT_CONCURRENCY,
      secrets,
    });
  } catch (err) {
    if (err instanceof Refused) {
      const hint = actionHint(err.hint);
      const refusal = `### mac apply: refused\n\n${err.message}${hint ? `\n\nhint: ${hint}` : ''}\n\nNothing was changed. The plan:`;
      await appendSummary(`${refusal}\n\n${planSummary(planned, run.target, SUMMARY_LIMIT - size(refusal) - 1000)}`);
      throw new Refused(err.message, { cause: err, hint });
    }
    throw err;
  }
  const table = `${renderResultMarkdown(result)}\n`;
  await appendSummary(`${table}\n${planSummary(planned, run.target, SUMMARY_LIMIT - size(table) - 1000)}`);
  for (const o of result.outcomes) {
    if (o.status === 'failed') core.error(`${o.key}: ${o.error ?? 'failed'}${o.hint ? `\nhint: ${o.hint}` : ''}`, { title: `mac: ${o.action} failed` });
  }
  if (!succeeded(result)) {
    const { applied, failed, skipped } = result.summary;
    const left = result.convergence?.issues.length ?? 0;
    throw new MacError(`apply incomplete: ${applied} applied, ${failed} failed, ${skipped} skipped${left ? `, ${left} differences left` : ''}`, {
      hint: 'the table is in the job summary; run the workflow again once the cause is fixed (the next plan starts from the live state)',
    });
  }
  core.info(`Applied ${result.summary.applied} changes.`);
}

/** Loads and validates; errors become annotations, the comment and the summary, then fail the run. */
async function load(run: ActionRun): Promise<LoadedProject> {
  const project = await loadProject(run.dir, { env: run.env });
  const errors = project.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    await publishInvalid(project.diagnostics, run.target);
    throw new ValidationFailed(`${errors.length} error${errors.length === 1 ? '' : 's'} in the definitions; nothing was planned`, {
      hint: 'the annotations and the job summary name each file:line',
    });
  }
  annotate(diagnosticAnnotations(project.diagnostics, repoPathOf(run.target.projectDir)));
  return project;
}

async function plan(run: ActionRun, project: LoadedProject, client: ApiClient): Promise<Plan> {
  const info = await gitInfo(run.dir);
  // Actions check out a detached commit; the branch comes from the event instead.
  const branch = info?.branch ?? run.target.ctx.branch;
  const git = info || branch ? { ...info, ...(branch ? { branch } : {}) } : undefined;
  return createPlan(project, client, { prune: run.inputs.prune, changedSince: await scope(run), git });
}

/**
 * The files changed since the ref. A shallow clone (actions/checkout's default depth 1) lacks the
 * pull request's base: planning everything then is a superset, so it warns instead of failing.
 */
async function scope(run: ActionRun): Promise<Plan['changedSince']> {
  const since = run.changedSince;
  if (!since) return undefined;
  try {
    return { ref: since.ref, files: await changedFiles(run.dir, since.ref) };
  } catch (err) {
    if (!since.fromEvent || !(err instanceof UsageError)) throw err;
    core.warning(
      `The pull request's base commit ${since.ref.slice(0, 7)} is not in the clone, so every resource was planned. Check out with fetch-depth: 0 to plan only what the pull request changes.`,
    );
    return undefined;
  }
}

async function withClient(run: ActionRun, fn: (client: ApiClient) => Promise<void>): Promise<void> {
  const client = new ApiClient(run.connection);
  try {
    await fn(client);
  } finally {
    await client.close();
  }
}

// The engine's hints name CLI flags; in a workflow the same knobs are inputs.
function actionHint(hint: string | undefined): string | undefined {
  return hint?.replace(/(?:run again )?with --max-deletes (\d+)/g, 'set the input max-deletes to $1').replace(/--prune/g, 'the input prune: true');
}

function describe(err: unknown): string {
  if (err instanceof MacError) return err.hint ? `${err.message}\nhint: ${err.hint}` : err.message;
  return err instanceof Error ? err.message : String(err);
}
