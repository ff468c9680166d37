import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunContext } from '../../src/action/event.js';
import { projectDirInRepo, repoPathOf } from '../../src/action/links.js';

const dir = mkdtempSync(join(tmpdir(), 'mac-event-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function eventFile(payload: unknown): string {
  const file = join(dir, `event-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(payload));
  return file;
}

describe('run context', () => {
  it('takes the head commit and branch of a pull request from its event, not the merge commit', () => {
    const ctx = readRunContext(
      {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_REPOSITORY: 'acme/shop',
        GITHUB_SHA: 'merge000',
        GITHUB_REF: 'refs/pull/7/merge',
        GITHUB_WORKSPACE: '/w',
        GITHUB_EVENT_PATH: eventFile({
          pull_request: { number: 7, head: { sha: 'head111', ref: 'feature/x', repo: { id: 1, full_name: 'acme/shop' } }, base: { sha: 'base222', ref: 'main', repo: { id: 1, full_name: 'acme/shop' } } },
        }),
      },
      '/cwd',
    );
    expect(ctx).toEqual({
      eventName: 'pull_request',
      owner: 'acme',
      repo: 'shop',
      headSha: 'head111',
      branch: 'feature/x',
      pullRequest: { number: 7, baseSha: 'base222', baseRef: 'main', fromFork: false },
      serverUrl: 'https://github.com',
      workspace: '/w',
    });
  });

  it('tells a pull request from a fork (or from a repository that is gone) from one of the same repository', () => {
    const fromFork = (head: unknown, base: unknown = { id: 1, full_name: 'acme/shop' }, event = 'pull_request') =>
      readRunContext(
        { GITHUB_EVENT_NAME: event, GITHUB_REPOSITORY: 'acme/shop', GITHUB_EVENT_PATH: eventFile({ pull_request: { number: 7, head: { sha: 'h', ref: 'x', repo: head }, base: { sha: 'b', ref: 'main', repo: base } } }) },
        '/cwd',
      ).pullRequest?.fromFork;
    expect(fromFork({ id: 1, full_name: 'acme/shop' })).toBe(false);
    expect(fromFork({ id: 2, full_name: 'mallory/shop' })).toBe(true);
    expect(fromFork({ id: 2, full_name: 'mallory/shop' }, undefined, 'pull_request_target')).toBe(true);
    // Same name, other repository (the base was renamed and a fork took the name): ids decide.
    expect(fromFork({ id: 2, full_name: 'acme/shop' })).toBe(true);
    expect(fromFork({ full_name: 'ACME/shop' }, { full_name: 'acme/shop' })).toBe(false);
    expect(fromFork(null)).toBe(true);
    expect(fromFork(undefined)).toBe(true);
  });

  it('reads a push: the pushed commit and branch, no pull request', () => {
    const ctx = readRunContext(
      { GITHUB_EVENT_NAME: 'push', GITHUB_REPOSITORY: 'acme/shop', GITHUB_SHA: 'abc', GITHUB_REF: 'refs/heads/main', GITHUB_SERVER_URL: 'https://ghe.example/', GITHUB_EVENT_PATH: eventFile({ ref: 'refs/heads/main' }) },
      '/cwd',
    );
    expect(ctx).toMatchObject({ headSha: 'abc', branch: 'main', serverUrl: 'https://ghe.example', workspace: '/cwd' });
    expect(ctx.pullRequest).toBeUndefined();
  });

  it('needs GITHUB_REPOSITORY', () => {
    expect(() => readRunContext({}, '/cwd')).toThrow('GITHUB_REPOSITORY is not set to owner/repo');
  });
});

describe('paths in the repository', () => {
  it('maps project files to repository paths', () => {
    expect(projectDirInRepo('/w', '.')).toBe('.');
    expect(projectDirInRepo('/w', './monitoring/')).toBe('monitoring');
    expect(projectDirInRepo('/w', '/w/a/b')).toBe('a/b');
    expect(repoPathOf('.')('checks/db.yaml')).toBe('checks/db.yaml');
    expect(repoPathOf('a/b')('checks/db.yaml')).toBe('a/b/checks/db.yaml');
  });
});
