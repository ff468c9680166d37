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

/**
 * Keeps ONE comment per pull request and dir: creates it on the first run, edits it in place
 * later, and makes no write at all when its body is already `body`.
 */
export async function upsertStickyComment(octokit: Octokit, target: StickyTarget, body: string): Promise<StickyOutcome> {
  const { owner, repo, issueNumber, marker } = target;
  try {
    const existing = await findComment(octokit, target);
    if (!existing) {
      const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: issueNumber, body });
      return { outcome: 'created', id: data.id, url: data.html_url };
    }
    if (same(existing.body ?? '', body)) return { outcome: 'unchanged', id: existing.id, url: existing.html_url };
    if (!body.includes(marker)) throw new Error(`the comment body lacks its marker ${marker}`);
    const { data } = await octokit.rest.issues.updateComment({ owner, repo, comment_id: existing.id, body });
    return { outcome: 'updated', id: data.id, url: data.html_url };
  } catch (err) {
    // A workflow run for a fork's pull request gets a read-only token: GitHub answers 403.
    if (statusOf(err) === 403) return { outcome: 'forbidden', message: err instanceof Error ? err.message : String(err) };
    throw err;
  }
}

async function findComment(octokit: Octokit, target: StickyTarget) {
  const iterator = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: 100,
  });
  for await (const page of iterator) {
    const found = page.data.find((c) => c.body?.includes(target.marker));
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
