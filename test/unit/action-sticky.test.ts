import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getOctokit } from '@actions/github';
import { markerFor, upsertStickyComment, type StickyTarget } from '../../src/action/sticky.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';

let gh: FakeGitHub;
beforeEach(async () => {
  gh = await startFakeGitHub();
});
afterEach(async () => {
  await gh.close();
});

const target = (dir = '.'): StickyTarget => ({ owner: 'acme', repo: 'shop', issueNumber: 7, marker: markerFor(dir) });
const octokit = () => getOctokit('test-token', { baseUrl: gh.url });
const body = (dir: string, text: string) => `${markerFor(dir)}\n\n${text}\n`;

describe('sticky plan comment', () => {
  it('creates one comment, then updates it in place, then leaves it alone when unchanged', async () => {
    const first = await upsertStickyComment(octokit(), target(), body('.', 'plan A'));
    expect(first.outcome).toBe('created');
    const second = await upsertStickyComment(octokit(), target(), body('.', 'plan B'));
    expect(second).toMatchObject({ outcome: 'updated', id: first.outcome === 'created' ? first.id : -1 });
    const writesBefore = gh.writes().length;
    const third = await upsertStickyComment(octokit(), target(), body('.', 'plan B'));
    expect(third.outcome).toBe('unchanged');
    expect(gh.writes().length).toBe(writesBefore);
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0].body).toContain('plan B');
    expect(gh.requests[0].authorization).toBe('token test-token');
  });

  it('keeps one comment per dir and ignores other comments', async () => {
    gh.seed('acme/shop#7', 'LGTM, but see <!-- mac-plan:other --> soon', 'octocat');
    gh.seed('acme/shop#8', body('monitoring', 'another PR'));
    await upsertStickyComment(octokit(), target('monitoring'), body('monitoring', 'one'));
    await upsertStickyComment(octokit(), target('.'), body('.', 'two'));
    await upsertStickyComment(octokit(), target('monitoring'), body('monitoring', 'three'));
    const onPr = gh.comments.filter((c) => c.issue === 'acme/shop#7');
    expect(onPr.map((c) => c.body)).toEqual(['LGTM, but see <!-- mac-plan:other --> soon', body('monitoring', 'three'), body('.', 'two')]);
    expect(gh.comments.find((c) => c.issue === 'acme/shop#8')?.body).toContain('another PR');
  });

  it('finds its comment beyond the first page of comments', async () => {
    gh.maxPerPage = 5;
    for (let i = 0; i < 12; i++) gh.seed('acme/shop#7', `chatter ${i}`, 'octocat');
    gh.seed('acme/shop#7', body('.', 'old plan'));
    const r = await upsertStickyComment(octokit(), target(), body('.', 'new plan'));
    expect(r.outcome).toBe('updated');
    expect(gh.comments).toHaveLength(13);
    expect(gh.requests.filter((q) => q.method === 'GET' && q.path.includes('/comments')).length).toBe(3);
  });

  it('reports a read-only token (a fork pull request) as forbidden instead of throwing', async () => {
    gh.readOnly = true;
    const r = await upsertStickyComment(octokit(), target(), body('.', 'plan'));
    expect(r.outcome).toBe('forbidden');
    expect(r.outcome === 'forbidden' && r.message).toContain('Resource not accessible by integration');
    expect(gh.comments).toHaveLength(0);
  });

  it('rethrows other HTTP errors', async () => {
    gh.failStatus = 401;
    await expect(upsertStickyComment(octokit(), target(), body('.', 'plan'))).rejects.toMatchObject({ status: 401 });
  });

  it('never edits a look-alike: a comment with the marker by another login is left alone and a new one is created', async () => {
    const lookalike = gh.seed('acme/shop#7', body('.', 'plan by someone else'), 'mallory');
    const r = await upsertStickyComment(octokit(), target(), body('.', 'our plan'));
    expect(r.outcome).toBe('created');
    expect(gh.writes().map((w) => w.method)).toEqual(['POST']);
    expect(gh.comments.find((c) => c.id === lookalike.id)?.body).toBe(body('.', 'plan by someone else'));
    expect(gh.comments.filter((c) => c.user.login === 'github-actions[bot]').map((c) => c.body)).toEqual([body('.', 'our plan')]);
    // The next run finds its own comment (by github-actions[bot], as GET /user answers 403 to GITHUB_TOKEN).
    const again = await upsertStickyComment(octokit(), target(), body('.', 'our plan 2'));
    expect(again).toMatchObject({ outcome: 'updated', id: r.outcome === 'created' ? r.id : -1 });
    expect(gh.comments.find((c) => c.id === lookalike.id)?.body).toBe(body('.', 'plan by someone else'));
  });

  it('with a personal or app token, keeps the comment of the login GET /user names, not github-actions[bot]', async () => {
    gh.tokenLogin = 'mac-bot';
    const bots = gh.seed('acme/shop#7', body('.', 'by the workflow token'));
    const r = await upsertStickyComment(octokit(), target(), body('.', 'one'));
    expect(r.outcome).toBe('created');
    const again = await upsertStickyComment(octokit(), target(), body('.', 'two'));
    expect(again).toMatchObject({ outcome: 'updated', id: r.outcome === 'created' ? r.id : -1 });
    expect(gh.comments.find((c) => c.id === bots.id)?.body).toBe(body('.', 'by the workflow token'));
    expect(gh.comments.find((c) => c.user.login === 'mac-bot')?.body).toBe(body('.', 'two'));
  });

  it('takes a comment as its own only when the body starts with the marker (a quoted marker is not one)', async () => {
    const quoting = gh.seed('acme/shop#7', `> quoting\n\n${markerFor('.')}\n`);
    const r = await upsertStickyComment(octokit(), target(), body('.', 'plan'));
    expect(r.outcome).toBe('created');
    expect(gh.comments.find((c) => c.id === quoting.id)?.body).toBe(`> quoting\n\n${markerFor('.')}\n`);
  });

  it('encodes -- in the dir so the marker stays one HTML comment', () => {
    expect(markerFor('a--b')).toBe('<!-- mac-plan:a%2D%2Db -->');
    expect(markerFor('monitoring/prod')).toBe('<!-- mac-plan:monitoring/prod -->');
  });
});
