import * as core from '@actions/core';
import type { Diagnostic } from '../config/types.js';
import type { Plan } from '../plan/types.js';
import { diagnosticAnnotations, planAnnotations } from './annotations.js';
import { buildPlanBody, type BodyOptions } from './comment/body.js';
import { cell, code, codeLink, fence, fitLines } from './comment/markdown.js';
import type { RunContext } from './event.js';
import { blobUrl, checksUrl, fileUrl, placeOf, repoPathOf } from './links.js';
import { annotate, appendSummary, COMMENT_LIMIT, setPlanOutputs, SUMMARY_LIMIT, warn, writePlanFile } from './report.js';
import { scrub } from './scrub.js';
import { markerFor, upsertStickyComment, type Octokit, type StickyOutcome } from './sticky.js';

/** Where a plan is published: the run, the project dir in the repository, and how to comment. */
export interface PublishTarget {
  ctx: RunContext;
  /** Project dir relative to the repository root ('.' for the root). */
  projectDir: string;
  /** Comment on the pull request (input `comment` and a pull_request event). */
  comment: boolean;
  /** Present when a token was given. */
  octokit?: Octokit;
  planFile: string;
  /** The changed-since ref is the pull request's base (the comment then speaks of "this PR's files"). */
  sinceIsPullRequestBase?: boolean;
}

/**
 * Publishes a plan: the plan file and outputs, deletion warnings as annotations, the sticky
 * pull request comment (or a warning and the summary alone for a read-only token), and the
 * full plan in the job summary.
 */
export async function publishPlan(plan: Plan, t: PublishTarget): Promise<StickyOutcome | undefined> {
  setPlanOutputs(plan, await writePlanFile(plan, t.planFile));
  annotate(planAnnotations(plan, repoPathOf(t.projectDir)));
  const sticky = await comment(t, (marker) =>
    buildPlanBody(plan, {
      ...bodyOptions(plan, t),
      marker,
      limit: COMMENT_LIMIT,
      elsewhere: `The full plan is in the [job summary](${checksUrl(t.ctx)}) of this commit's mac run.`,
    }).text,
  );
  await appendSummary([forbiddenNote(sticky), planSummary(plan, t, SUMMARY_LIMIT - 2000)].filter(Boolean).join('\n\n'));
  return sticky;
}

/** The plan as job summary markdown within `limit` bytes. */
export function planSummary(plan: Plan, t: PublishTarget, limit: number): string {
  return buildPlanBody(plan, { ...bodyOptions(plan, t), limit, elsewhere: 'The whole plan is in the plan file (output `plan-file`).' }).text;
}

function bodyOptions(plan: Plan, t: PublishTarget): Pick<BodyOptions, 'title' | 'placeOf' | 'linkOf' | 'sinceIsPullRequestBase'> {
  const repoPath = repoPathOf(t.projectDir);
  return {
    sinceIsPullRequestBase: t.sinceIsPullRequestBase === true,
    title: title(plan.project, t),
    placeOf: (c) => placeOf(c, repoPath),
    linkOf: (c) => blobUrl(t.ctx, c, repoPath),
  };
}

/**
 * Publishes invalid definitions: error annotations at file:line, the list in the job summary,
 * and the sticky comment replaced by the list so reviewers never read a stale plan.
 */
export async function publishInvalid(diagnostics: Diagnostic[], t: PublishTarget): Promise<StickyOutcome | undefined> {
  const repoPath = repoPathOf(t.projectDir);
  annotate(diagnosticAnnotations(diagnostics, repoPath));
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const rows = diagnostics.map((d) => {
    const where = `${repoPath(d.file)}:${d.line}:${d.col}`;
    const url = fileUrl(t.ctx, repoPath(d.file), d.line);
    const text = `${d.severity} ${d.path ? `${cell(d.path)} ` : ''}${cell(d.message)}${d.hint ? ` (hint: ${cell(d.hint)})` : ''}`;
    return `| ${codeLink(where, url).replace(/\|/g, '\\|')} | ${text} |`;
  });
  const body = (limit: number) => {
    const fitted = fitLines(rows, limit - 1000, (n) => `| | _…and ${n} more_ |`);
    return [
      `**The definitions are invalid** (${errors.length} error${errors.length === 1 ? '' : 's'}); nothing was planned.`,
      ['| where | problem |', '|---|---|', ...fitted.lines].join('\n'),
    ].join('\n\n');
  };
  const heading = title(undefined, t);
  const sticky = await comment(t, (marker) => `${marker}\n\n${heading}\n\n${body(COMMENT_LIMIT)}\n`);
  await appendSummary([forbiddenNote(sticky), `${heading}\n\n${body(SUMMARY_LIMIT)}\n`].filter(Boolean).join('\n\n'));
  return sticky;
}

/**
 * Publishes a plan that could not be made (API unreachable, unknown revision, ...): the comment
 * says so instead of showing an older plan. The reason stays in the log and summary: an error
 * may name internal hosts that a public pull request should not show.
 */
export async function publishFailure(message: string, t: PublishTarget): Promise<void> {
  const heading = title(undefined, t);
  const sticky = await comment(t, (marker) => `${marker}\n\n${heading}\n\n**The plan failed**; the job log and summary of this commit's mac run say why: ${checksUrl(t.ctx)}\n`);
  const reason = `**The plan failed:**\n\n${fence('text', message.split('\n'))}`;
  await appendSummary([forbiddenNote(sticky), `${heading}\n\n${reason}\n`].filter(Boolean).join('\n\n'));
}

function title(project: string | undefined, t: PublishTarget): string {
  const dir = t.projectDir === '.' ? '' : ` in ${code(t.projectDir)}`;
  const proj = project ? ` for project ${code(project)}` : '';
  const at = t.ctx.headSha ? ` at ${t.ctx.headSha.slice(0, 7)}` : '';
  return `### mac plan${proj}${dir}${at}`;
}

async function comment(t: PublishTarget, body: (marker: string) => string): Promise<StickyOutcome | undefined> {
  const pr = t.ctx.pullRequest;
  if (!t.comment || !pr) return undefined;
  if (!t.octokit) {
    warn('No github-token: the plan is in the job summary only.');
    return undefined;
  }
  const marker = markerFor(t.projectDir);
  // Every comment body leaves through scrub(): no sensitive value of the run is ever posted.
  const result = await upsertStickyComment(t.octokit, { owner: t.ctx.owner, repo: t.ctx.repo, issueNumber: pr.number, marker }, scrub(body(marker)));
  if (result.outcome === 'forbidden') {
    warn(`Could not comment on pull request #${pr.number} (${result.message}); the token is read-only, as for a pull request from a fork. The plan is in the job summary.`);
  } else {
    core.info(`Plan comment ${result.outcome}: ${result.url}`);
  }
  return result;
}

function forbiddenNote(sticky: StickyOutcome | undefined): string {
  if (sticky?.outcome !== 'forbidden') return '';
  return '> [!WARNING]\n> The plan could not be posted on the pull request: the workflow token is read-only (a pull request from a fork). It is here instead.';
}
