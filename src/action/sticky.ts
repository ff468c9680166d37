import type { getOctokit } from '@actions/github';

/** The octokit @actions/github builds (REST methods + pagination). */
export type Octokit = ReturnType<typeof getOctokit>;

/** Which pull request and which project dir a sticky comment belongs to. */
export interface StickyTarget {
  owner: string;
  repo: string;
  issueNumber: number;
  /** Hidden marker that identifies the comment (see markerFor). */
  marker: string;
}

/** What happened to the sticky comment. */
export type StickyOutcome =
  | { outcome: 'created' | 'updated' | 'unchanged'; id: number; url: string }
  /** The token may not write comments (a pull request from a fork): the caller falls back to the summary. */
  | { outcome: 'forbidden'; message: string };

/**
 * The hidden marker of the plan comment for one project dir: `<!-- mac-plan:<dir> -->`.
 * `--` may not appear inside an HTML comment, so it is percent-encoded.
 */
export function markerFor(dir: string): string {
  return `<!-- mac-plan:${dir.replace(/--/g, '%2D%2D')} -->`;
}

/** The login the default GITHUB_TOKEN writes comments as. */
export const GITHUB_ACTIONS_LOGIN = 'github-actions[bot]';

/**
 * The login the token writes comments as: `GET /user` for a personal or app user token. The
 * default GITHUB_TOKEN may not call it (403/404 "Resource not accessible by integration") and
 * writes as github-actions[bot].
 */
export async function tokenLogin(octokit: Octokit): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch (err) {
    const status = statusOf(err);
    if (status === 403 || status === 404) return GITHUB_ACTIONS_LOGIN;
    throw err;
  }
}

/**
 * Keeps ONE comment per pull request and dir: creates it on the first run, edits it in place
 * later, and makes no write at all when its body is already `body`. A comment is ours only when
 * it starts with the marker AND was written by the login the token authenticates as: a
 * look-alike by anyone else (a reviewer, an attacker quoting the marker) is never edited.
 */
export async function upsertStickyComment(octokit: Octokit, target: StickyTarget, body: string): Promise<StickyOutcome> {
  const { owner, repo, issueNumber, marker } = target;
  if (!body.startsWith(marker)) throw new Error(`the comment body does not start with its marker ${marker}`);
  try {
    const login = await tokenLogin(octokit);
    const existing = await findComment(octokit, target, login);
    if (!existing) {
      const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body });
      return { outcome: 'created', id: data.id, url: data.html_url };
    }
    if (same(existing.body ?? '', body)) return { outcome: 'unchanged', id: existing.id, url: existing.html_url };
    const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body });
    return { outcome: 'updated', id: data.id, url: data.html_url };
  } catch (err) {
    // A workflow run for a fork's pull request gets a read-only token: GitHub answers 403.
    if (statusOf(err) === 403) return { outcome: 'forbidden', message: err instanceof Error ? err.message : String(err) };
    throw err;
  }
}

async function findComment(octokit: Octokit, target: StickyTarget, login: string) {
  const iterator = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: 100,
  });
  for await (const page of iterator) {
    // The marker must open the body: our own bodies quote definitions (in code), which may hold a marker-like text.
    const found = page.data.find((c) => c.user?.login === login && (c.body ?? '').trimStart().startsWith(target.marker));
    if (found) return found;
  }
  return undefined;
}

// GitHub stores the body as sent, but editors and API clients may turn \n into \r\n.
function same(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\r\n/g, '\n').trimEnd();
  return norm(a) === norm(b);
}

function statusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number' ? err.status : undefined;
}
