import * as core from '@actions/core';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ApiClient } from '../api/index.js';
import type { LockOptions } from '../apply/lock.js';
import { localHolder } from '../apply/holder.js';
import { DEFAULT_CONCURRENCY } from '../config/options.js';
import { readPlanFile } from '../apply/plan-file.js';
import { succeeded, type ApplyResult } from '../apply/result.js';
import type { SecretSources } from '../apply/secrets.js';
import { withApplySession, type ApplySession } from '../apply/session.js';
import type { Connection } from '../config/connection.js';
import { loadProject } from '../config/load.js';
import { maskedPointers } from '../config/interpolate.js';
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
import { annotate, appendSummary, setPlanOutputs, SUMMARY_LIMIT, warn, writePlanFile } from './report.js';
import { size } from './comment/markdown.js';
import { scrubber } from './scrub.js';
import { getAt } from '../json/pointer.js';

/** One run of the action, resolved from inputs and the workflow context. */
export interface ActionRun {
  /** Absolute project dir. */
  dir: string;
  connection: Connection;
  inputs: ActionInputs;
  /**
   * Git ref whose changed files the plan lists first (`only`: narrows the plan to them;
   * `fromEvent`: the pull request's base, not an input); undefined: no highlight.
   */
  changedSince?: { ref: string; fromEvent: boolean; only: boolean };
  /** false: `*.mac.ts` files are refused before any is loaded (input typescript, a fork's pull request). */
  typescript: boolean;
  target: PublishTarget;
  /** The environment `${{ env.NAME }}` in definitions reads (watched: what it reads is scrubbed from outputs). */
  env: Record<string, string | undefined>;
  /**
   * The process environment, unwatched: what the action itself reads of the run (the
   * repository, the run id, the actor). Read through `env` it would become "sensitive" and be
   * masked in every link and summary (the repository name shown as three stars).
   */
  runnerEnv: Record<string, string | undefined>;
  /** Seconds an apply waits for another apply of the project (input lock-timeout). */
  lockTimeoutSeconds: number;
}

/** Plans and publishes the plan (comment, summary, outputs, annotations). Invalid definitions fail the run. */
export async function runPlan(run: ActionRun): Promise<void> {
  const project = await load(run);
  await withClient(run, async (client) => {
    let planned: Plan;
    try {
      planned = await plan(run, project, client);
    } catch (err) {
      await publishFailure(describe(err), run.target).catch((e: unknown) => warn(`could not publish the failure: ${describe(e)}`));
      throw err;
    }
    await publishPlan(planned, run.target);
  });
}

/**
 * Plans and applies with the CLI's safety rules (max-deletes, never empty a project, ownership,
 * staleness); the applied / failed / skipped table goes to the job summary, and anything short
 * of a full, converged apply fails the run. With the input plan-file, applies that saved plan
 * exactly instead (as `mac apply FILE`).
 */
export async function runApply(run: ActionRun): Promise<void> {
  if (run.inputs.planFile !== undefined) return runApplyPlanFile(run, run.inputs.planFile);
  const project = await load(run);
  await withClient(run, (client) =>
    // The plan is made under the lock too: it must see what an apply before it wrote.
    withApplySession({ client, project: project.config.project, lock: actionLock(run) }, async (session) => {
      const planned = await plan(run, project, client);
      setPlanOutputs(planned, await writePlanFile(planned, run.target.planFile));
      await applyAndReport(run, planned, session, { env: run.env, reload: async () => desiredBodies(project.definitions, planned.project) });
    }),
  );
}

function actionLock(run: ActionRun): LockOptions {
  const env = run.runnerEnv;
  const where = [env.GITHUB_REPOSITORY, env.GITHUB_RUN_ID && `run ${env.GITHUB_RUN_ID}`].filter(Boolean).join(' ');
  const holder = localHolder(`mac action apply${where ? ` (${where})` : ''}`, env);
  return { holder: { ...holder, user: env.GITHUB_ACTOR || holder.user }, timeoutMs: run.lockTimeoutSeconds * 1000, onNotice: (m) => core.info(m) };
}

/**
 * Applies a saved plan (the reviewed one, carried from the pull request's job): nothing is
 * re-planned; every object it touches is re-read first and a plan that went stale is refused
 * before any write. Secret values come from the environment, then from the checked-out project.
 */
async function runApplyPlanFile(run: ActionRun, file: string): Promise<void> {
  const path = resolve(run.target.ctx.workspace, file);
  const planned = await readPlanFile(path).catch((err: unknown) => {
    if (err instanceof MacError) throw new UsageError(`input "plan-file": ${err.message}`, { cause: err, hint: err.hint });
    throw err;
  });
  setPlanOutputs(planned, path);
  await withClient(run, async (client) => {
    if (planned.apiUrl.replace(/\/+$/, '') !== client.apiUrl) {
      throw new Refused(`the saved plan was made against ${planned.apiUrl}, not ${client.apiUrl}`, {
        hint: 'set the input api-url to the planned API, or plan again',
      });
    }
    core.info(`Applying the saved plan ${file} (${planned.git?.commit ? `planned at ${planned.git.commit.slice(0, 7)}, ` : ''}${planned.createdAt})`);
    const sources: SecretSources = { env: run.env, reload: () => reloadBodies(run, planned.project) };
    // Under the lock, the staleness check sees what another apply wrote before it.
    await withApplySession({ client, project: planned.project, lock: actionLock(run) }, (session) => applyAndReport(run, planned, session, sources, file));
  });
}

async function applyAndReport(run: ActionRun, planned: Plan, session: ApplySession, sources: SecretSources, savedPlan?: string): Promise<void> {
  let result: ApplyResult;
  try {
    // The secrets are recovered under the lock, just before the first write.
    result = await session.apply(planned, { maxDeletes: run.inputs.maxDeletes, concurrency: run.inputs.concurrency ?? DEFAULT_CONCURRENCY, secrets: sources });
  } catch (err) {
    if (err instanceof Refused) {
      const stale = savedPlan !== undefined && /\bstale\b/.test(err.message);
      const hint = stale
        ? 'the account changed since the plan was reviewed (another merge applied first, or a change by hand): nothing of this plan was applied; review the fresh plan of the merged commit and run the apply workflow by hand (without plan-file) to apply it'
        : actionHint(err.hint);
      const what = savedPlan !== undefined ? `The saved plan \`${savedPlan}\`` : 'The plan';
      const refusal = `### mac apply: refused${stale ? ' (stale plan)' : ''}\n\n${fence(err.message)}${hint ? `\n\nhint: ${hint}` : ''}\n\nNothing was changed. ${what}:`;
      // The workflow re-plans the checkout after a stale refusal (examples/workflows/mac-apply.yml).
      core.setOutput('stale', String(stale));
      await appendSummary(`${refusal}\n\n${planSummary(planned, run.target, SUMMARY_LIMIT - size(refusal) - 1000)}`);
      throw new Refused(err.message, { cause: err, hint });
    }
    throw err;
  }
  const table = `${renderResultMarkdown(result)}\n`;
  await appendSummary(`${table}\n${planSummary(planned, run.target, SUMMARY_LIMIT - size(table) - 1000)}`);
  annotate(
    result.outcomes
      .filter((o) => o.status === 'failed')
      .map((o) => ({ level: 'error' as const, message: `${o.key}: ${o.error ?? 'failed'}${o.hint ? `\nhint: ${o.hint}` : ''}`, properties: { title: `mac: ${o.action} failed` } })),
  );
  if (!succeeded(result)) {
    const { applied, failed, skipped } = result.summary;
    const left = result.convergence?.issues.length ?? 0;
    throw new MacError(`apply incomplete: ${applied} applied, ${failed} failed, ${skipped} skipped${left ? `, ${left} differences left` : ''}${result.recordError ? `; ${result.recordError}` : ''}`, {
      hint: 'the table is in the job summary; run the workflow again once the cause is fixed (the next plan starts from the live state)',
    });
  }
  core.info(`Applied ${result.summary.applied} changes.`);
}

/** Loads and validates; errors become annotations, the comment and the summary, then fail the run. */
async function load(run: ActionRun): Promise<LoadedProject> {
  const project = await loadProject(run.dir, { env: run.env, typescript: run.typescript, typescriptRefusedBy: `input typescript: ${run.inputs.typescript}` });
  watchDeclaredEnv(project, run.env);
  const errors = project.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    await publishInvalid(project.diagnostics, run.target);
    const repoPath = repoPathOf(run.target.projectDir);
    const first = errors[0];
    throw new ValidationFailed(
      `${errors.length} error${errors.length === 1 ? '' : 's'} in the definitions; nothing was planned. First: ${repoPath(first.file)}:${first.line}:${first.col}: ${first.message}`,
      { hint: 'the annotations and the job summary name each file:line' },
    );
  }
  annotate(diagnosticAnnotations(project.diagnostics, repoPathOf(run.target.projectDir)));
  return project;
}

/**
 * Makes what the project knows to be sensitive scrubbed from every output: the values of every
 * name declared under `env:` (read through the watched env) and every value a plan masks (secret,
 * credential and locked values written literally in a file), wherever else it is copied.
 */
function watchDeclaredEnv(project: LoadedProject, env: Record<string, string | undefined>): void {
  const declared = (project.config as { env?: unknown }).env;
  if (Array.isArray(declared)) for (const name of declared) if (typeof name === 'string') void env[name];
  for (const def of project.definitions) {
    // Secret values, credentials and locked values (locked variables, locked webhook headers and query parameters).
    for (const pointer of maskedPointers(def)) {
      const value = getAt(def.spec, pointer);
      if (typeof value === 'string') scrubber.add(value);
    }
  }
}

/** The checked-out project's bodies, for secret values a saved plan left out; none when the dir is missing. */
async function reloadBodies(run: ActionRun, projectName: string): Promise<Map<string, Record<string, unknown>>> {
  const isDir = await stat(run.dir).then((s) => s.isDirectory(), () => false);
  if (!isDir) return new Map();
  const loaded = await loadProject(run.dir, { env: run.env, typescript: run.typescript, typescriptRefusedBy: `input typescript: ${run.inputs.typescript}` });
  watchDeclaredEnv(loaded, run.env);
  return desiredBodies(loaded.definitions, projectName);
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
 * pull request's base: the plan then covers everything without listing the pull request's
 * files first, with a warning (the plan is the same; only the order is lost).
 */
async function scope(run: ActionRun): Promise<{ ref: string; files: string[]; only: boolean } | undefined> {
  const since = run.changedSince;
  if (!since) return undefined;
  try {
    return { ref: since.ref, files: await changedFiles(run.dir, since.ref), only: since.only };
  } catch (err) {
    if (!since.fromEvent || !(err instanceof UsageError)) throw err;
    warn(
      `The pull request's base commit ${since.ref.slice(0, 7)} is not in the clone, so the plan (of every resource, as always) cannot list the pull request's files first. Check out with fetch-depth: 0.`,
    );
    return undefined;
  }
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}text\n${text}\n${f}`;
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
