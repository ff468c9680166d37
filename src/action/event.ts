import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** The workflow run as the action needs it: where, which commit, which pull request. */
export interface RunContext {
  eventName: string;
  owner: string;
  repo: string;
  /** The commit whose files were checked out; for pull requests, the PR's head (not the merge commit). */
  headSha: string;
  /** Branch name, when known (the PR's head branch, or the pushed branch). */
  branch?: string;
  /** Set on pull_request events. */
  pullRequest?: {
    number: number;
    baseSha: string;
    baseRef: string;
    /** The head branch lives in another repository than the base (a fork), or its repository is gone. */
    fromFork: boolean;
  };
  /** https://github.com (or the GHES host), for links. */
  serverUrl: string;
  /** Absolute path of the checked-out repository. */
  workspace: string;
}

interface PullRequestPayload {
  pull_request?: {
    number?: number;
    head?: { sha?: string; ref?: string; repo?: RepoPayload | null };
    base?: { sha?: string; ref?: string; repo?: RepoPayload | null };
  };
}

interface RepoPayload {
  id?: number;
  full_name?: string;
}

const PR_EVENTS = new Set(['pull_request', 'pull_request_target']);

/** Builds the run context from the GITHUB_* environment and the event file it points to. */
export function readRunContext(env: Record<string, string | undefined>, cwd: string): RunContext {
  const eventName = env.GITHUB_EVENT_NAME ?? '';
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!owner || !repo) {
    throw new UsageError('GITHUB_REPOSITORY is not set to owner/repo', { hint: 'run the action inside a GitHub Actions workflow' });
  }
  const payload: PullRequestPayload = env.GITHUB_EVENT_PATH ? JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) : {};
  const ctx: RunContext = {
    eventName,
    owner,
    repo,
    headSha: env.GITHUB_SHA ?? '',
    branch: refToBranch(env.GITHUB_REF),
    serverUrl: (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, ''),
    workspace: env.GITHUB_WORKSPACE ?? cwd,
  };
  const pr = payload.pull_request;
  if (PR_EVENTS.has(eventName) && pr?.number !== undefined) {
    ctx.headSha = pr.head?.sha ?? ctx.headSha;
    ctx.branch = pr.head?.ref ?? env.GITHUB_HEAD_REF ?? ctx.branch;
    ctx.pullRequest = {
      number: pr.number,
      baseSha: pr.base?.sha ?? '',
      baseRef: pr.base?.ref ?? env.GITHUB_BASE_REF ?? '',
      fromFork: isFork(pr.head?.repo, pr.base?.repo, `${owner}/${repo}`),
    };
  }
  return ctx;
}

/**
 * Whether the head repository differs from the base. A head repository that is missing (a
 * deleted fork) counts as a fork: only a provably same-repository head is trusted.
 */
function isFork(head: RepoPayload | null | undefined, base: RepoPayload | null | undefined, repository: string): boolean {
  if (!head) return true;
  if (head.id !== undefined && base?.id !== undefined) return head.id !== base.id;
  const baseName = base?.full_name ?? repository;
  return head.full_name === undefined || head.full_name.toLowerCase() !== baseName.toLowerCase();
}

function refToBranch(ref: string | undefined): string | undefined {
  return ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
}

/**
 * `auto`: code runs only where the repository's own people put it: on `push`, and on a
 * `pull_request` whose head is this repository. Every other event is denied: a fork's pull
 * request, `pull_request_target` (the base's secrets with the fork's files), `workflow_run` and
 * `issue_comment` (triggered by outsiders, often checking out their code), and any event added
 * later.
 */
export function typescriptAllowed(input: 'allow' | 'deny' | 'auto', ctx: Pick<RunContext, 'eventName' | 'pullRequest'>): boolean {
  if (input === 'allow') return true;
  if (input === 'deny') return false;
  if (ctx.eventName === 'push') return true;
  if (ctx.eventName === 'pull_request') return ctx.pullRequest !== undefined && !ctx.pullRequest.fromFork;
  return false;
}
