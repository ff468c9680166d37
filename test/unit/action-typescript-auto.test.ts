import { describe, expect, it } from 'vitest';
import { typescriptAllowed } from '../../src/action/event.js';

const pr = (fromFork: boolean) => ({ number: 1, baseSha: 'b', baseRef: 'main', fromFork });

describe('typescript: auto', () => {
  it('allows code on push and on a pull request from the same repository', () => {
    expect(typescriptAllowed('auto', { eventName: 'push' })).toBe(true);
    expect(typescriptAllowed('auto', { eventName: 'pull_request', pullRequest: pr(false) })).toBe(true);
  });

  it('denies it on every other event', () => {
    expect(typescriptAllowed('auto', { eventName: 'pull_request', pullRequest: pr(true) })).toBe(false);
    // A pull_request event whose payload names no pull request is not known to be from this repository.
    expect(typescriptAllowed('auto', { eventName: 'pull_request' })).toBe(false);
    for (const eventName of ['pull_request_target', 'workflow_run', 'issue_comment', 'workflow_dispatch', 'schedule', 'merge_group', 'repository_dispatch', 'release', '']) {
      expect(typescriptAllowed('auto', { eventName, pullRequest: pr(false) }), eventName).toBe(false);
    }
  });

  it('allow and deny are what they say, on any event', () => {
    expect(typescriptAllowed('allow', { eventName: 'issue_comment' })).toBe(true);
    expect(typescriptAllowed('deny', { eventName: 'push' })).toBe(false);
  });
});
