import { describe, expect, it } from 'vitest';
import { refsIn, resolveRefs } from '../../../src/apply/refs.js';
import { isRefMarker } from '../../../src/plan/desired.js';

describe('refs', () => {
  const body = {
    name: 'x',
    setupSnippetId: { $ref: 'Snippet/s' },
    alertChannelSubscriptions: [{ alertChannelId: { $ref: 'AlertChannel/mail' }, activated: true }],
    request: { $ref: 'not-a-marker', other: 1 },
  };

  it('finds markers at any depth and only exact markers', () => {
    expect(isRefMarker({ $ref: 'A/b' })).toBe(true);
    expect(isRefMarker(body.request)).toBe(false);
    expect([...refsIn(body)].sort()).toEqual(['AlertChannel/mail', 'Snippet/s']);
  });

  it('replaces markers by ids without touching the input', () => {
    const ids = new Map<string, string | number>([
      ['Snippet/s', 7],
      ['AlertChannel/mail', 3],
    ]);
    const r = resolveRefs(body, ids);
    expect(r).toEqual({
      ok: true,
      value: { ...body, setupSnippetId: 7, alertChannelSubscriptions: [{ alertChannelId: 3, activated: true }] },
    });
    expect(body.setupSnippetId).toEqual({ $ref: 'Snippet/s' });
  });

  it('names the markers that have no id', () => {
    expect(resolveRefs(body, new Map([['Snippet/s', 7]]))).toEqual({ ok: false, missing: ['AlertChannel/mail'] });
  });
});
